//! The run-time checks of the scoped-atomics library that end in a `trap`, recognised by the
//! predicate their inline assembly names (`@%rank_out_of_range trap;`), so that a fault can say
//! which check failed and why. A `trap` not recognised stays a plain "trap": nothing is guessed.

/// A library check a guarded `trap` belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LibraryCheck {
    /// `map_shared_rank`: the rank is not below `%cluster_nctarank`.
    RankOutOfRange,
    /// `map_shared_rank`: the address is not in this block's shared memory.
    NotOwnShared,
    /// `sync_warp`: the mask does not name the calling lane.
    WarpMaskWithoutCaller,
    /// A state-space reference (`isspacep`): the address is not in the space it claims.
    NotInSpace,
}

impl LibraryCheck {
    /// The check a `trap` guarded by `guard` (negated?, predicate name) belongs to, if the
    /// predicate is one the library's inline assembly declares for it.
    pub(crate) fn of_guard(guard: Option<&(bool, &str)>) -> Option<LibraryCheck> {
        let &(negated, name) = guard?;
        Some(match (negated, name) {
            (false, "%rank_out_of_range") => LibraryCheck::RankOutOfRange,
            (true, "%not_own_shared") => LibraryCheck::NotOwnShared,
            (false, "%not_member") => LibraryCheck::WarpMaskWithoutCaller,
            (true, "%in_space") => LibraryCheck::NotInSpace,
            _ => return None,
        })
    }

    /// The fault's text: the check's function and what failed; `cluster` is the launch's
    /// cluster shape.
    pub(crate) fn describe(self, cluster: [u32; 3]) -> String {
        let blocks: u32 = cluster.iter().product();
        match self {
            LibraryCheck::RankOutOfRange => format!(
                "trap in scoped_atomics::kernel::map_shared_rank (a library check: the rank is \
                 not below %cluster_nctarank = {blocks}, the blocks of a cluster of shape \
                 {cluster:?}{})",
                if blocks == 1 {
                    "; a launch without a cluster shape has clusters of one block: give one \
                     (`--cluster`, `Launch::cluster`)"
                } else {
                    ""
                }
            ),
            LibraryCheck::NotOwnShared => "trap in scoped_atomics::kernel::map_shared_rank (a \
                 library check: the address is not in this block's shared memory)"
                .into(),
            LibraryCheck::WarpMaskWithoutCaller => "trap in scoped_atomics::kernel::sync_warp \
                 (a library check: the mask does not name the calling lane)"
                .into(),
            LibraryCheck::NotInSpace => "trap in a scoped_atomics state-space check (a library \
                 check, `isspacep`: the address is not in the state space its reference \
                 claims)"
                .into(),
        }
    }
}
