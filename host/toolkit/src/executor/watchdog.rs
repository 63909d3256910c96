//! The watchdog's side of a host launch (see [`Launch::watchdog`](super::Launch::watchdog)):
//! the thread that checks `scoped_atomics::kernel::emulation::Watchdog` and stops a hung launch.

use super::LaunchError;
use scoped_atomics::kernel::emulation;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// The watchdog's thread: checks `watchdog` every `timeout / 8` (between 1 and 100 ms) until
/// every kernel thread has finished; on a hang records [`LaunchError::Hung`] (unless a kernel
/// thread panicked before), skips the blocks not started and stops the launch.
pub(super) fn watch(
    watchdog: &emulation::Watchdog,
    timeout: Duration,
    running: &AtomicUsize,
    failed: &AtomicBool,
    first_panic: &Mutex<Option<LaunchError>>,
) {
    let poll = (timeout / 8).clamp(Duration::from_millis(1), Duration::from_millis(100));
    while running.load(Ordering::SeqCst) > 0 {
        std::thread::sleep(poll);
        if let Some(threads) = watchdog.check(timeout) {
            // A panic first is the cause (its block's other threads wait for it at a barrier):
            // it stays the error, and the stop frees the threads it stranded.
            first_panic
                .lock()
                .unwrap()
                .get_or_insert(LaunchError::Hung {
                    after: timeout,
                    threads,
                });
            failed.store(true, Ordering::SeqCst);
            watchdog.stop();
            return;
        }
    }
}
