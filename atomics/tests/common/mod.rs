//! Helpers shared by the misuse tests: running a closure that must panic, quietly, and reading
//! its message and the file its panic was reported in (to check `#[track_caller]`).

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while a case runs: the panic hook then records instead of printing.
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    /// The file of the last captured panic's location.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A process-wide hook that records the location of expected panics silently and leaves every
/// other panic (a failing assertion) to the default hook.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                let file = info.location().map(|l| l.file().to_owned());
                LOCATION.with(|l| *l.borrow_mut() = file);
            } else {
                default(info)
            }
        }));
    });
}

/// Runs `f`; returns its panic message and location file, or `None` if it did not panic.
pub fn panic_of(f: impl FnOnce()) -> Option<(String, Option<String>)> {
    install_hook();
    CAPTURING.with(|c| c.set(true));
    LOCATION.with(|l| *l.borrow_mut() = None);
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURING.with(|c| c.set(false));
    let payload = result.err()?;
    let message = if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_owned()
    };
    Some((message, LOCATION.with(|l| l.borrow_mut().take())))
}
