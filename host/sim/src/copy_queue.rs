//! The `cp.async` copies a thread has in flight: thread state that [`crate::exec`] holds and
//! [`crate::async_copy`] (the instructions, above execution) issues and completes.

/// One copy in flight: addresses (shared destination, global source), bytes copied, bytes read
/// from the source (the rest are zero), the instruction, and its group (`None` until
/// `cp.async.commit_group`).
#[derive(Clone, Debug)]
pub struct PendingCopy {
    pub(crate) dst: u64,
    pub(crate) src: u64,
    pub(crate) size: u64,
    pub(crate) src_size: u64,
    pub(crate) pc: u32,
    pub(crate) group: Option<u32>,
    /// The thread's race-detection clock when it issued the copy (empty without detection).
    pub(crate) issued: crate::race::ThreadClock,
}

/// The copies a thread has in flight and how many groups it has committed.
#[derive(Clone, Debug, Default)]
pub struct AsyncCopies {
    pub(crate) pending: Vec<PendingCopy>,
    pub(crate) committed: u32,
}
