//! Where the threads of a litmus test run in a launch: each CTA of the test a block, the CTAs of
//! one cluster consecutive blocks of a cluster, every cluster padded to the largest.

use ptx_litmus::program::{Litmus, Placement};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The place of each litmus thread as (block index, thread index in the block), `None` for a
/// host thread; the number of blocks, the block size and the cluster size.
pub type Layout = (Vec<Option<(u32, u32)>>, u32, u32, Option<u32>);

/// Places CTAs in blocks: the CTAs of one cluster are consecutive blocks, every cluster padded
/// to the size of the largest (clusters are uniform in a launch).
pub fn layout(t: &Litmus) -> Result<Layout, String> {
    let mut gpus = BTreeSet::new();
    // (cluster key, cta) for each thread; a CTA without a cluster is a cluster of its own.
    let mut keys = Vec::new();
    for th in &t.threads {
        match th.place {
            Placement::Host => keys.push(None),
            Placement::Gpu { gpu, cluster, cta } => {
                gpus.insert(gpu);
                let ckey = match cluster {
                    Some(k) => (0, k),
                    None => (1, cta),
                };
                keys.push(Some((ckey, cta)));
            }
        }
    }
    if gpus.len() > 1 {
        return Err("threads on several GPUs (the simulator runs one device)".into());
    }
    let explicit_clusters = t.threads.iter().any(|th| {
        matches!(
            th.place,
            Placement::Gpu {
                cluster: Some(_),
                ..
            }
        )
    });
    let mut clusters: BTreeMap<(u8, i64), BTreeSet<i64>> = BTreeMap::new();
    for &(c, cta) in keys.iter().flatten() {
        clusters.entry(c).or_default().insert(cta);
    }
    // One CTA number in two clusters cannot be laid out.
    let mut seen = BTreeSet::new();
    for ctas in clusters.values() {
        for c in ctas {
            if !seen.insert(*c) {
                return Err(format!("CTA {c} placed in two clusters"));
            }
        }
    }
    let per_cluster = if explicit_clusters {
        clusters.values().map(BTreeSet::len).max().unwrap_or(1) as u32
    } else {
        1
    };
    if per_cluster > 8 {
        return Err(format!("a cluster of {per_cluster} CTAs"));
    }
    let mut block_of = HashMap::new();
    for (k, ctas) in clusters.values().enumerate() {
        for (i, c) in ctas.iter().enumerate() {
            block_of.insert(*c, k as u32 * per_cluster + i as u32);
        }
    }
    // A test of host threads alone launches one block that does nothing.
    let blocks = (clusters.len() as u32 * per_cluster).max(1);
    let mut next = HashMap::<u32, u32>::new();
    let mut place = Vec::new();
    for key in &keys {
        place.push(key.map(|(_, cta)| {
            let b = block_of[&cta];
            let n = next.entry(b).or_default();
            *n += 1;
            (b, *n - 1)
        }));
    }
    let per_block = next.values().copied().max().unwrap_or(1);
    Ok((
        place,
        blocks,
        per_block,
        explicit_clusters.then_some(per_cluster),
    ))
}
