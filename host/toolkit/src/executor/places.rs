//! Where the blocks of a launch run: the shape of its clusters, each block's index in the grid,
//! and the resident places (see [`Launch::run`](super::Launch::run)), which create a cluster's
//! contexts when its first thread arrives and drop them when its last one leaves.

use super::{LaunchError, MAX_CLUSTER_BLOCKS};
use scoped_atomics::kernel::Dim3;
use scoped_atomics::kernel::emulation::{BlockContext, ClusterContext};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The blocks of a cluster shape: its size, or why the shape does not fit the grid.
pub(super) fn cluster_blocks(grid: Dim3, cluster: Dim3) -> Result<u32, LaunchError> {
    let fits = |g: u32, c: u32| c >= 1 && g % c == 0;
    let size = u64::from(cluster.x) * u64::from(cluster.y) * u64::from(cluster.z);
    if fits(grid.x, cluster.x)
        && fits(grid.y, cluster.y)
        && fits(grid.z, cluster.z)
        && size <= u64::from(MAX_CLUSTER_BLOCKS)
    {
        Ok(size as u32)
    } else {
        Err(LaunchError::ClusterShape { grid, cluster })
    }
}

/// The block index of the block of rank `rank` of cluster `c` (linear in the grid of clusters).
pub(super) fn block_of(c: u32, cluster_grid: Dim3, shape: Dim3, rank: u32) -> Dim3 {
    let (cluster, within) = (
        Dim3::from_linear(c, cluster_grid),
        Dim3::from_linear(rank, shape),
    );
    Dim3::new(
        cluster.x * shape.x + within.x,
        cluster.y * shape.y + within.y,
        cluster.z * shape.z + within.z,
    )
}

/// The contexts of one cluster: the cluster's and its blocks', by rank.
pub(super) fn cluster_contexts(shape: Dim3, block_threads: u32) -> Vec<Arc<BlockContext>> {
    let cluster = ClusterContext::new(shape, block_threads);
    (0..shape.size())
        .map(|_| BlockContext::in_cluster(block_threads, &cluster))
        .collect()
}

/// One resident place: its host threads (one per thread of each block of a cluster; without
/// clusters, of a block) run clusters `p`, `p + R`, `p + 2R`, …, each thread moving on to its
/// next cluster as soon as it returns from the current one — without waiting for the rest, so a
/// kernel that never waits costs no thread switch per block. The threads of one cluster still
/// all run at once (they are the place's live threads), so `sync_threads` and `cluster_sync`
/// work; a cluster's contexts live until all its threads have left.
pub(super) struct Place {
    /// The clusters some thread of the place has entered and not all have left, oldest first:
    /// (cluster, its blocks' contexts by rank, threads yet to leave).
    pub(super) clusters: Mutex<VecDeque<(u32, Vec<Arc<BlockContext>>, u32)>>,
}

impl Place {
    /// The context of the block of rank `rank` of cluster `c` for one of its threads; the first
    /// thread of the cluster to arrive creates the cluster's contexts.
    pub(super) fn enter(
        &self,
        c: u32,
        shape: Dim3,
        block_threads: u32,
        rank: u32,
    ) -> Arc<BlockContext> {
        let mut clusters = self.clusters.lock().unwrap();
        if let Some((_, blocks, _)) = clusters.iter().find(|(cluster, _, _)| *cluster == c) {
            return blocks[rank as usize].clone();
        }
        let blocks = cluster_contexts(shape, block_threads);
        let context = blocks[rank as usize].clone();
        clusters.push_back((c, blocks, shape.size() * block_threads));
        context
    }

    /// One thread of cluster `c` has returned; the last one drops the cluster's contexts.
    pub(super) fn leave(&self, c: u32) {
        let mut clusters = self.clusters.lock().unwrap();
        if let Some(i) = clusters.iter().position(|(cluster, _, _)| *cluster == c) {
            clusters[i].2 -= 1;
            if clusters[i].2 == 0 {
                clusters.remove(i);
            }
        }
    }
}
