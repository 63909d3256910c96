//! Panic messages with numbers in them, built by `const fn`s so that the constructors can stay
//! `const` (a `static Barrier<Device>` for a grid-wide barrier) and still name the numbers.
//!
//! `core::fmt` cannot run in a `const fn`; `panic!("{}", s)` with a `&str` can. [`Message`]
//! writes text and decimal numbers into a fixed buffer and hands out the `&str`.

/// A panic message under construction: at most `CAPACITY` bytes, the rest silently dropped.
pub(crate) struct Message {
    buf: [u8; Message::CAPACITY],
    len: usize,
}

impl Message {
    const CAPACITY: usize = 200;

    /// An empty message.
    pub(crate) const fn new() -> Self {
        Self {
            buf: [0; Self::CAPACITY],
            len: 0,
        }
    }

    /// Appends `text`.
    pub(crate) const fn text(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < Self::CAPACITY {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends `value` in decimal.
    pub(crate) const fn num(mut self, mut value: u64) -> Self {
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
    #[cold]
    #[track_caller]
    pub(crate) const fn panic(self) -> ! {
        panic!("{}", self.as_str())
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
