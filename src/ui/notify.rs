//! How a new finding is announced on the terminal: the bell (`BEL`) once and, with `notify =
//! "osc"`, a desktop notification — OSC 777 (`ESC ] 777 ; notify ; title ; body BEL`: foot,
//! WezTerm, kitty, rxvt-unicode with the extension) and OSC 9 (`ESC ] 9 ; text BEL`: iTerm2,
//! Windows Terminal, ConEmu). Terminals that know neither ignore them. Inside tmux they pass only
//! with `set -g allow-passthrough on` (sent in a DCS passthrough as OSC 52 is); the bell reaches
//! tmux always (`monitor-bell`, `bell-action`). Pure: the runtime writes the returned string.
//! The text is a server's words at times (an SV's name): every control character, `;` and
//! non-ASCII-printable character is dropped, and it is cut to 200 characters.

use super::osc52::Multiplexer;
use crate::model::findings::NotifyMode;

/// Longest notification text (characters).
pub const MAX_NOTIFY_CHARS: usize = 200;

/// The text as it may go inside an OSC sequence: printable characters only (no control
/// character, no `ESC`, no `BEL`, no `;` that would end a field), at most
/// [`MAX_NOTIFY_CHARS`].
pub fn notify_text(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() || c == ';' { ' ' } else { c })
        .filter(|c| !matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        .take(MAX_NOTIFY_CHARS)
        .collect()
}

/// What to write for a new finding described by `text` (empty with `notify = "off"`).
pub fn notify_sequence(text: &str, mode: NotifyMode, mux: Multiplexer) -> String {
    match mode {
        NotifyMode::Off => String::new(),
        NotifyMode::Bell => "\x07".to_owned(),
        NotifyMode::Osc => {
            let body = notify_text(text);
            let osc =
                format!("\x1b]777;notify;cantonscope;{body}\x07\x1b]9;cantonscope: {body}\x07");
            let osc = match mux {
                Multiplexer::None => osc,
                Multiplexer::Tmux => format!("\x1bPtmux;{}\x1b\\", osc.replace('\x1b', "\x1b\x1b")),
            };
            format!("\x07{osc}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bell_alone_by_default_and_nothing_when_off() {
        assert_eq!(
            notify_sequence("x", NotifyMode::Bell, Multiplexer::None),
            "\x07"
        );
        assert_eq!(notify_sequence("x", NotifyMode::Off, Multiplexer::Tmux), "");
    }

    #[test]
    fn a_hostile_text_cannot_end_the_sequence_or_reach_the_terminal() {
        let seq = notify_sequence(
            "SV\x1b]0;owned\x07;x\u{202e}y",
            NotifyMode::Osc,
            Multiplexer::None,
        );
        assert_eq!(
            seq,
            "\x07\x1b]777;notify;cantonscope;SV ]0 owned  xy\x07\x1b]9;cantonscope: SV ]0 owned  xy\x07"
        );
        let tmux = notify_sequence("a", NotifyMode::Osc, Multiplexer::Tmux);
        assert!(tmux.starts_with("\x07\x1bPtmux;\x1b\x1b]777;"));
        assert!(tmux.ends_with("\x1b\\"));
        assert_eq!(
            notify_text(&"é".repeat(500)).chars().count(),
            MAX_NOTIFY_CHARS
        );
    }
}
