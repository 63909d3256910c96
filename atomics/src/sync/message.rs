//! Panic messages with numbers in them, built by `const fn`s so that the constructors can stay
//! `const` (a `static Barrier<Device>` for a grid-wide barrier) and still name the numbers.
//!
//! `core::fmt` cannot run in a `const fn`; `panic!("{}", s)` with a `&str` can. [`Message`]
//! writes text and decimal numbers into a fixed buffer and hands out the `&str`.
//!
//! # On the device
//! A misuse at run time on the device stops the kernel with `trap` and nothing else: no message
//! is built (that took calls and a 200-byte `.local` buffer in every primitive's kernel). The
//! builder methods are inlined there and [`Message::panic`] chooses, with `const_eval_select`,
//! between the message (in constant evaluation: a `static` built with a bad count is still a
//! compile-time error that says why) and a bare `trap` (at run time), so the unused buffer is
//! optimised away. On the host every misuse panics with its message.

/// A panic message under construction: at most `CAPACITY` bytes, the rest silently dropped.
pub(crate) struct Message {
    buf: [u8; Message::CAPACITY],
    len: usize,
}

impl Message {
    const CAPACITY: usize = 200;

    /// An empty message.
    #[cfg_attr(target_arch = "nvptx64", inline(always))]
    pub(crate) const fn new() -> Self {
        Self {
            buf: [0; Self::CAPACITY],
            len: 0,
        }
    }

    /// Appends `text` (on the device at run time: nothing, see the module documentation).
    #[cfg_attr(target_arch = "nvptx64", inline(always))]
    pub(crate) const fn text(self, text: &str) -> Self {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.append_text(text)
        }
        #[cfg(target_arch = "nvptx64")]
        {
            core::intrinsics::const_eval_select(
                (self, text),
                Message::append_text,
                Message::skip_text,
            )
        }
    }

    /// Appends `value` in decimal (on the device at run time: nothing).
    #[cfg_attr(target_arch = "nvptx64", inline(always))]
    pub(crate) const fn num(self, value: u64) -> Self {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.append_num(value)
        }
        #[cfg(target_arch = "nvptx64")]
        {
            core::intrinsics::const_eval_select(
                (self, value),
                Message::append_num,
                Message::skip_num,
            )
        }
    }

    /// The device at run time: the text is not kept.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn skip_text(self, _text: &str) -> Self {
        self
    }

    /// The device at run time: the number is not kept.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn skip_num(self, _value: u64) -> Self {
        self
    }

    const fn append_text(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < Self::CAPACITY {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    const fn append_num(mut self, mut value: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (value % 10) as u8;
            n += 1;
            value /= 10;
            if value == 0 {
                break;
            }
        }
        while n > 0 && self.len < Self::CAPACITY {
            n -= 1;
            self.buf[self.len] = digits[n];
            self.len += 1;
        }
        self
    }

    /// The message so far. Only whole ASCII/UTF-8 pieces are appended, and truncation can only cut
    /// a multi-byte character if a caller passes non-ASCII text; then the valid prefix is returned.
    pub(crate) const fn as_str(&self) -> &str {
        let (written, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(written) {
            Ok(s) => s,
            Err(e) => match core::str::from_utf8(written.split_at(e.valid_up_to()).0) {
                Ok(s) => s,
                Err(_) => "",
            },
        }
    }

    /// Panics with this message, at the caller's location (every public entry point that can
    /// fail is `#[track_caller]` too, so the location is the user's call).
    #[cfg_attr(not(target_arch = "nvptx64"), cold)]
    #[cfg_attr(target_arch = "nvptx64", inline(always))]
    #[track_caller]
    pub(crate) const fn panic(self) -> ! {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.report()
        }
        #[cfg(target_arch = "nvptx64")]
        {
            core::intrinsics::const_eval_select((self,), Message::report, Message::trap)
        }
    }

    /// Panics with the message.
    #[track_caller]
    const fn report(self) -> ! {
        panic!("{}", self.as_str())
    }

    /// The device at run time: `trap`, the message unused (and so never built).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn trap(self) -> ! {
        // SAFETY: `trap` aborts the kernel; it touches no memory the program owns. `nomem`: the
        // message is not read, so the code that would build it is dead.
        unsafe { core::arch::asm!("trap;", options(noreturn, nostack, nomem)) }
    }
}

#[cfg(test)]
mod tests {
    use super::Message;

    #[test]
    fn builds_text_and_numbers() {
        let m = Message::new().text("a ").num(0).text(" b ").num(u64::MAX);
        assert_eq!(m.as_str(), "a 0 b 18446744073709551615");
    }

    #[test]
    fn truncates_at_capacity() {
        let mut m = Message::new();
        for _ in 0..100 {
            m = m.text("xyz");
        }
        assert_eq!(m.as_str().len(), Message::CAPACITY);
    }
}
