//! Thread-block clusters: the launch's cluster shape, the `.shared::cluster` addresses of other
//! CTAs' shared memory (`mapa`) and the cluster barrier (`barrier.cluster.arrive`/`.wait`).
//!
//! A `.shared::cluster` address of the CTA of rank `r` is [`REMOTE`] `| r << 24 | offset` in the
//! shared state space (so `SHARED_WINDOW` plus that as a generic address); an address without
//! the tag is the executing CTA's own shared memory, which is a `.shared::cluster` address too,
//! as in PTX.

use crate::address::SHARED_WINDOW;

/// The tag of a shared-space address into some CTA of the cluster (by rank).
pub const REMOTE: u64 = 1 << 31;
const RANK_SHIFT: u32 = 24;
/// The largest shared memory of a CTA the tagged addresses reach (16 MiB).
pub const OFFSET_MASK: u64 = (1 << RANK_SHIFT) - 1;

/// The `.shared::cluster` address of `offset` in the CTA of rank `rank`.
pub fn tag(rank: u32, offset: u64) -> u64 {
    REMOTE | (u64::from(rank) << RANK_SHIFT) | (offset & OFFSET_MASK)
}

/// The rank a shared-space address names (`None`: the executing CTA) and its offset.
pub fn untag(addr: u64) -> (Option<u32>, u64) {
    if addr & REMOTE != 0 && addr < 1 << 32 {
        (
            Some(((addr >> RANK_SHIFT) & 0x7f) as u32),
            addr & OFFSET_MASK,
        )
    } else {
        (None, addr)
    }
}

/// The shape of a launch's clusters and the arithmetic of ranks.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub grid: [u32; 3],
    pub cluster: [u32; 3],
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            grid: [1; 3],
            cluster: [1; 3],
        }
    }
}

impl Shape {
    /// Blocks per cluster.
    pub fn size(&self) -> u32 {
        self.cluster.iter().product()
    }

    /// The linear index of the cluster of the CTA at `ctaid`.
    pub fn cluster_of(&self, ctaid: [u32; 3]) -> u32 {
        let c = self.cluster;
        let n = [
            self.grid[0] / c[0],
            self.grid[1] / c[1],
            self.grid[2] / c[2],
        ];
        let id = [ctaid[0] / c[0], ctaid[1] / c[1], ctaid[2] / c[2]];
        (id[2] * n[1] + id[1]) * n[0] + id[0]
    }

    /// `%cluster_ctaid` of the CTA at `ctaid`.
    pub fn within(&self, ctaid: [u32; 3]) -> [u32; 3] {
        let c = self.cluster;
        [ctaid[0] % c[0], ctaid[1] % c[1], ctaid[2] % c[2]]
    }

    /// `%cluster_ctarank` of the CTA at `ctaid`.
    pub fn rank(&self, ctaid: [u32; 3]) -> u32 {
        let (w, c) = (self.within(ctaid), self.cluster);
        (w[2] * c[1] + w[1]) * c[0] + w[0]
    }

    /// The linear CTA index of the CTA of rank `rank` in the cluster of linear CTA `cta`.
    pub fn cta_of_rank(&self, cta: u32, rank: u32) -> u32 {
        let g = self.grid;
        let ctaid = [cta % g[0], cta / g[0] % g[1], cta / (g[0] * g[1])];
        let c = self.cluster;
        let w = [rank % c[0], rank / c[0] % c[1], rank / (c[0] * c[1])];
        let t = [
            ctaid[0] - ctaid[0] % c[0] + w[0],
            ctaid[1] - ctaid[1] % c[1] + w[1],
            ctaid[2] - ctaid[2] % c[2] + w[2],
        ];
        (t[2] * g[1] + t[1]) * g[0] + t[0]
    }
}

/// `mapa`: the address of the location `addr` names in the CTA of rank `rank`. `generic`: `addr`
/// and the result are generic addresses (in the shared window); otherwise shared-space ones.
pub fn mapa(shape: &Shape, generic: bool, addr: u64, rank: u32) -> Result<u64, String> {
    if rank >= shape.size() {
        return Err(format!(
            "mapa to rank {rank}, but the cluster has {} CTAs (ranks 0..{})",
            shape.size(),
            shape.size()
        ));
    }
    let shared = if generic {
        match addr.checked_sub(SHARED_WINDOW) {
            Some(a) if a < 1 << 32 => a,
            _ => {
                return Err(format!(
                    "mapa of generic address {addr:#x}, which is not in shared memory"
                ));
            }
        }
    } else {
        addr
    };
    let mapped = tag(rank, untag(shared).1);
    Ok(if generic {
        SHARED_WINDOW + mapped
    } else {
        mapped
    })
}

/// The `%cluster_*` special registers of a thread of the CTA at `ctaid`.
pub fn special(shape: &Shape, ctaid: [u32; 3], which: ClusterRegister, dim: u8) -> u64 {
    let d = usize::from(dim.min(2));
    let c = shape.cluster;
    u64::from(match which {
        ClusterRegister::ClusterId => ctaid[d] / c[d],
        ClusterRegister::NClusterId => shape.grid[d] / c[d],
        ClusterRegister::CtaId => shape.within(ctaid)[d],
        ClusterRegister::NCtaId => c[d],
        ClusterRegister::CtaRank => shape.rank(ctaid),
        ClusterRegister::NCtaRank => shape.size(),
    })
}

/// Which `%cluster_*` register.
pub enum ClusterRegister {
    ClusterId,
    NClusterId,
    CtaId,
    NCtaId,
    CtaRank,
    NCtaRank,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_ctas_round_trip_in_3d() {
        let s = Shape {
            grid: [4, 2, 2],
            cluster: [2, 2, 1],
        };
        for cta in 0..16 {
            let ctaid = [cta % 4, cta / 4 % 2, cta / 8];
            let rank = s.rank(ctaid);
            assert!(rank < 4);
            assert_eq!(s.cta_of_rank(cta, rank), cta);
            for r in 0..4 {
                let other = s.cta_of_rank(cta, r);
                let oid = [other % 4, other / 4 % 2, other / 8];
                assert_eq!(s.cluster_of(oid), s.cluster_of(ctaid));
                assert_eq!(s.rank(oid), r);
            }
        }
    }

    #[test]
    fn mapa_tags_and_checks_the_rank() {
        let s = Shape {
            grid: [4, 1, 1],
            cluster: [2, 1, 1],
        };
        let a = mapa(&s, true, SHARED_WINDOW + 8, 1).unwrap();
        assert_eq!(untag(a - SHARED_WINDOW), (Some(1), 8));
        // A mapped address maps again to the same offset.
        assert_eq!(
            untag(mapa(&s, true, a, 0).unwrap() - SHARED_WINDOW),
            (Some(0), 8)
        );
        assert!(mapa(&s, false, 8, 2).unwrap_err().contains("ranks 0..2"));
        assert!(mapa(&s, true, 0x1000, 0).is_err());
    }
}
