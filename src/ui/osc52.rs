//! The OSC 52 "set clipboard" escape sequence (works over SSH). Inside tmux it is sent twice:
//! raw (tmux takes it with `set -g set-clipboard on`, sets its buffer and forwards it) and in a
//! DCS passthrough (for `set -g allow-passthrough on`); either configuration works. Pure: the runtime writes the returned string to the
//! terminal.

use base64::Engine;

/// Largest text copied (bytes before encoding); terminals drop or truncate larger payloads.
pub const MAX_COPY_BYTES: usize = 1 << 20;

/// A terminal multiplexer between us and the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multiplexer {
    /// Talking to the terminal directly.
    None,
    /// Inside tmux: the raw sequence (for `set-clipboard on`) plus a DCS-passthrough copy (for
    /// `allow-passthrough on`).
    Tmux,
}

impl Multiplexer {
    /// From the value of `$TMUX` (set and non-empty inside tmux).
    pub fn from_tmux_var(tmux: Option<&str>) -> Self {
        match tmux {
            Some(v) if !v.is_empty() => Multiplexer::Tmux,
            _ => Multiplexer::None,
        }
    }

    /// From the process environment.
    pub fn detect() -> Self {
        Self::from_tmux_var(std::env::var("TMUX").ok().as_deref())
    }
}

/// Why a text cannot be copied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Osc52Error {
    /// Above [`MAX_COPY_BYTES`].
    #[error("too large to copy ({0} bytes, at most {MAX_COPY_BYTES}); save it to a file instead")]
    TooLarge(usize),
}

/// `ESC ] 52 ; c ; <base64> BEL`; inside tmux followed by the same wrapped as
/// `ESC P tmux; ESC <sequence> ESC \` (every ESC of the inner sequence doubled).
pub fn osc52_sequence(text: &str, mux: Multiplexer) -> Result<String, Osc52Error> {
    if text.len() > MAX_COPY_BYTES {
        return Err(Osc52Error::TooLarge(text.len()));
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    Ok(match mux {
        Multiplexer::None => format!("\x1b]52;c;{b64}\x07"),
        Multiplexer::Tmux => {
            format!("\x1b]52;c;{b64}\x07\x1bPtmux;\x1b\x1b]52;c;{b64}\x07\x1b\\")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_tmux() {
        assert_eq!(
            osc52_sequence("hello", Multiplexer::None).as_deref(),
            Ok("\x1b]52;c;aGVsbG8=\x07")
        );
        assert_eq!(
            osc52_sequence("hello", Multiplexer::Tmux).as_deref(),
            Ok("\x1b]52;c;aGVsbG8=\x07\x1bPtmux;\x1b\x1b]52;c;aGVsbG8=\x07\x1b\\")
        );
        assert_eq!(
            osc52_sequence("", Multiplexer::None).as_deref(),
            Ok("\x1b]52;c;\x07")
        );
    }

    #[test]
    fn payload_cannot_break_out_of_the_sequence() {
        // Whatever the text holds, the body is base64: no ESC or BEL inside.
        let seq = osc52_sequence("\x1b]0;pwned\x07\u{9c}", Multiplexer::None).expect("small");
        let body = &seq["\x1b]52;c;".len()..seq.len() - 1];
        assert!(
            body.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
        );
    }

    #[test]
    fn detection_and_limit() {
        assert_eq!(
            Multiplexer::from_tmux_var(Some("/tmp/tmux-0/default,1,0")),
            Multiplexer::Tmux
        );
        assert_eq!(Multiplexer::from_tmux_var(Some("")), Multiplexer::None);
        assert_eq!(Multiplexer::from_tmux_var(None), Multiplexer::None);
        let big = "x".repeat(MAX_COPY_BYTES + 1);
        assert_eq!(
            osc52_sequence(&big, Multiplexer::None),
            Err(Osc52Error::TooLarge(MAX_COPY_BYTES + 1))
        );
    }
}
