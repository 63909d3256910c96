//! The simulated address spaces: global regions (buffers and module variables), shared memory
//! per CTA, local memory per thread; generic addresses (laid out in [`crate::address`]), bounds
//! and alignment checks, and the live `mbarrier` objects of shared memory.

use super::cluster::{self, Shape};
use super::isa::Space;
use crate::address::WINDOW;
pub use crate::address::{
    GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, func_addr, func_at, region_base,
};

/// A resolved location.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Loc {
    Global(u32, u32),
    /// The CTA (linear index) whose shared memory, and the offset there.
    Shared(u32, u32),
    Local(u64),
}

/// A global region: a caller's buffer, a module variable or a block of the device heap.
#[derive(Debug, Clone)]
pub struct Region {
    pub name: String,
    pub data: Vec<u8>,
    /// For a block `malloc` returned: whether `free` has taken it back (`None`: not a heap block).
    pub freed: Option<bool>,
    /// A `.const` variable: the kernel may not store to it.
    pub constant: bool,
}

/// A live `mbarrier` object.
#[derive(Debug, Clone)]
pub struct Mbarrier {
    pub cta: u32,
    pub off: u32,
    pub expected: u32,
    pub pending: u32,
    /// Completed phases so far.
    pub phase: u64,
    /// Whether a `test_wait`/`try_wait` has returned true for the last completed phase (PTX: one
    /// must, before any arrive-on of the next phase).
    pub observed: bool,
}

/// Memory of a launch.
#[derive(Debug, Default)]
pub struct Memory {
    pub regions: Vec<Region>,
    pub shared: Vec<Vec<u8>>,
    pub mbarriers: Vec<Mbarrier>,
    /// The launch's grid and cluster shape (which CTA a `.shared::cluster` address names).
    pub shape: Shape,
    /// Blocks `malloc` returned so far (each names its region).
    pub heap_blocks: u32,
}

impl Memory {
    /// Adds a global region; returns its base address.
    pub fn add_region(&mut self, name: &str, data: Vec<u8>) -> u64 {
        self.regions.push(Region {
            name: name.to_string(),
            data,
            freed: None,
            constant: false,
        });
        region_base(self.regions.len() as u32 - 1)
    }

    /// `malloc`: a new region of `size` bytes, filled with 0xA5 (memory nobody wrote), named
    /// `malloc'd block N`; returns its address.
    pub fn allocate(&mut self, size: usize) -> u64 {
        let name = format!("malloc'd block {}", self.heap_blocks);
        self.heap_blocks += 1;
        let addr = self.add_region(&name, vec![0xA5; size]);
        if let Some(block) = self.regions.last_mut() {
            block.freed = Some(false);
        }
        addr
    }

    /// `free`: the block at `addr` is gone (every later access to it faults). The error says
    /// why `addr` cannot be freed: not an address `malloc` returned, or freed before.
    pub fn free(&mut self, addr: u64) -> Result<(), String> {
        let block = self
            .regions
            .iter_mut()
            .enumerate()
            .find(|(r, region)| region_base(*r as u32) == addr && region.freed.is_some());
        match block {
            Some((_, region)) if region.freed == Some(false) => {
                region.freed = Some(true);
                region.data = Vec::new();
                Ok(())
            }
            Some((_, region)) => Err(format!("free of {}, freed before", region.name)),
            None => Err(format!(
                "free({}): not a pointer malloc returned",
                self.describe(addr)
            )),
        }
    }

    /// Resolves an address of `space` (generic when `Generic`) for an access of `size` bytes by
    /// a thread with `local_len` bytes of local memory; the error says why it faults.
    pub fn resolve(
        &self,
        space: Space,
        addr: u64,
        size: u64,
        cta: u32,
        local_len: u64,
    ) -> Result<Loc, String> {
        if size > 1 && !addr.is_multiple_of(size) {
            return Err(format!("misaligned {size}-byte access at {addr:#x}"));
        }
        // `.shared`/`.shared::cta` names the executing CTA's own window only; a `.shared::cluster`
        // or generic address may reach any CTA of the cluster.
        let own_cta_only = space == Space::Shared;
        let (space, off) = match space {
            Space::Generic => classify(addr).ok_or_else(|| {
                format!("{size}-byte access at {addr:#x}, outside every state space")
            })?,
            Space::Global | Space::Const => (Space::Global, addr),
            Space::Shared | Space::SharedCluster => (Space::Shared, addr),
            Space::Local => (Space::Local, addr),
        };
        match space {
            Space::Shared => {
                let (rank, off) = cluster::untag(off);
                let cta = match rank {
                    Some(r) if r >= self.shape.size() => {
                        return Err(format!(
                            "{size}-byte access to the shared memory of cluster rank {r}, but the cluster has {} CTAs",
                            self.shape.size()
                        ));
                    }
                    Some(r) if own_cta_only && self.shape.cta_of_rank(cta, r) != cta => {
                        return Err(format!(
                            "{size}-byte .shared::cta access to the shared memory of cluster rank {r}, another CTA's window (only .shared::cluster and generic accesses may reach another CTA)"
                        ));
                    }
                    Some(r) => self.shape.cta_of_rank(cta, r),
                    None => cta,
                };
                let len = self.shared.get(cta as usize).map_or(0, |s| s.len() as u64);
                if off.checked_add(size).is_none_or(|e| e > len) {
                    return Err(format!(
                        "{size}-byte shared access at offset {off:#x}, beyond the {len} bytes of shared memory"
                    ));
                }
                Ok(Loc::Shared(cta, off as u32))
            }
            Space::Local => {
                if off.checked_add(size).is_none_or(|e| e > local_len) {
                    return Err(format!(
                        "{size}-byte local access at offset {off:#x}, beyond the thread's {local_len} bytes of local memory"
                    ));
                }
                Ok(Loc::Local(off))
            }
            _ => {
                if off < GLOBAL_BASE {
                    return Err(format!(
                        "{size}-byte global access at {off:#x}, outside every buffer"
                    ));
                }
                let r = ((off - GLOBAL_BASE) >> 32) as usize;
                let o = (off - GLOBAL_BASE) & (WINDOW - 1);
                match self.regions.get(r) {
                    Some(reg) if o + size <= reg.data.len() as u64 => {
                        Ok(Loc::Global(r as u32, o as u32))
                    }
                    Some(reg) if reg.freed == Some(true) => Err(format!(
                        "{size}-byte access at offset {o} of `{}`, after its free",
                        reg.name
                    )),
                    Some(reg) => Err(format!(
                        "{size}-byte access at offset {o} of `{}`, beyond its {} bytes",
                        reg.name,
                        reg.data.len()
                    )),
                    None => Err(format!(
                        "{size}-byte global access at {off:#x}, outside every buffer"
                    )),
                }
            }
        }
    }

    /// Why a store of `space` to `loc` is illegal: `st.const`, or any store (generic, `atom`,
    /// `red`) into a `.const` variable ("Stores to const memory are illegal", PTX ISA).
    #[inline(always)]
    pub fn store_refused(&self, space: Space, loc: Loc) -> Option<String> {
        match loc {
            Loc::Global(r, _) if space == Space::Const || self.regions[r as usize].constant => {
                Some(self.const_store(r))
            }
            _ => None,
        }
    }

    #[cold]
    fn const_store(&self, r: u32) -> String {
        format!(
            "store to `{}`, in .const memory: \"Stores to const memory are illegal\" (PTX ISA)",
            self.regions[r as usize].name
        )
    }

    /// The live mbarrier overlapping `[off, off+size)` of CTA `cta`'s shared memory.
    pub fn mbarrier_at(&self, cta: u32, off: u32, size: u32) -> Option<usize> {
        self.mbarriers
            .iter()
            .position(|m| m.cta == cta && m.off < off + size && off < m.off + 8)
    }
}

impl Memory {
    /// Names an address for a report: the buffer and offset, or the shared/local offset.
    pub fn describe(&self, addr: u64) -> String {
        match classify(addr) {
            Some((Space::Global, a)) => {
                let r = ((a - GLOBAL_BASE) >> 32) as usize;
                let o = (a - GLOBAL_BASE) & (WINDOW - 1);
                match self.regions.get(r) {
                    Some(reg) => format!("`{}`+{o} ({addr:#x})", reg.name),
                    None => format!("{addr:#x}"),
                }
            }
            Some((Space::Shared, o)) => match cluster::untag(o) {
                (Some(rank), o) => format!("shared offset {o:#x} of cluster rank {rank}"),
                (None, o) => format!("shared offset {o:#x}"),
            },
            Some((_, o)) => format!("local offset {o:#x}"),
            None => format!("{addr:#x}"),
        }
    }
}

/// The state space and in-space address of a generic address.
pub fn classify(addr: u64) -> Option<(Space, u64)> {
    if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&addr) {
        Some((Space::Shared, addr - SHARED_WINDOW))
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW).contains(&addr) {
        Some((Space::Local, addr - LOCAL_WINDOW))
    } else if (GLOBAL_BASE..SHARED_WINDOW).contains(&addr) {
        Some((Space::Global, addr))
    } else {
        None
    }
}

/// Reads `size` (1, 2, 4, 8) little-endian bytes.
#[inline(always)]
pub fn read(bytes: &[u8], off: usize, size: u64) -> u64 {
    match size {
        1 => u64::from(bytes[off]),
        2 => u64::from(u16::from_le_bytes(bytes[off..off + 2].try_into().unwrap())),
        4 => u64::from(u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap())),
        _ => u64::from_le_bytes(bytes[off..off + 8].try_into().unwrap()),
    }
}

/// Writes the low `size` bytes of `v`.
#[inline(always)]
pub fn write(bytes: &mut [u8], off: usize, size: u64, v: u64) {
    match size {
        1 => bytes[off] = v as u8,
        2 => bytes[off..off + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => bytes[off..off + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        _ => bytes[off..off + 8].copy_from_slice(&v.to_le_bytes()),
    }
}
