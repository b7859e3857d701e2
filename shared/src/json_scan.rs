//! JSON at the byte level, without building anything: where a string ends (its escapes skipped,
//! or checked and decoded), where a bracketed value ends, past which blanks. The one place that
//! knows JSON's strings and escapes byte by byte: the transcript's line look and direct reader,
//! the hook payload's end and the settings locator and patcher all scan with it.

use memchr::memchr2;

/// Past the blanks JSON allows between tokens (space, tab, newline, carriage return) from `at`.
pub fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// The index of the quote that closes the string whose content starts at `start`, its escapes
/// skipped unchecked (a backslash escapes the byte after it: a quote, a backslash, or the `u`
/// of `\uXXXX`); `None` when the bytes end first.
pub fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    loop {
        let found = at + memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[found] == b'"' {
            return Some(found);
        }
        at = found + 2;
    }
}

/// The content of the string whose content starts at `bytes[0]` when it holds no escape (a
/// value a reader may compare without decoding); `None` when it has one or is cut short.
pub fn plain_string(bytes: &[u8]) -> Option<&[u8]> {
    let end = memchr2(b'"', b'\\', bytes)?;
    (bytes[end] == b'"').then_some(&bytes[..end])
}

/// Just past the value that starts at `start`: a string; an object or array (strings inside
/// skipped, brackets counted, not matched); anything else up to the next delimiter or blank.
/// `None` when the bytes end first. For text known to be JSON: nothing is checked.
pub fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    match bytes.get(start)? {
        b'"' => string_end(bytes, start + 1).map(|end| end + 1),
        b'{' | b'[' => Nesting::default()
            .feed(&bytes[start..])
            .map(|length| start + length),
        _ => Some(
            bytes[start..]
                .iter()
                .position(|byte| matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(bytes.len(), |length| start + length),
        ),
    }
}

/// The brackets open at a point of JSON text fed chunk by chunk, strings skipped: where the
/// value whose opening bracket came first closes. What comes before that bracket is the
/// caller's.
#[derive(Debug, Default)]
pub struct Nesting {
    depth: usize,
    in_string: bool,
    /// Just after a backslash inside a string (a chunk may end between the two bytes).
    escaped: bool,
}

impl Nesting {
    /// Reads the next chunk: the length of it up to and including the bracket that closes the
    /// outermost value, or `None` when the value goes on past it.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<usize> {
        let mut index = 0;
        while index < chunk.len() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                    index += 1;
                    continue;
                }
                // Most of a large value is inside strings (a tool's output): jump to the next
                // byte that can end one.
                match memchr2(b'"', b'\\', &chunk[index..]) {
                    Some(offset) => {
                        if chunk[index + offset] == b'"' {
                            self.in_string = false;
                        } else {
                            self.escaped = true;
                        }
                        index += offset + 1;
                    }
                    None => index = chunk.len(),
                }
                continue;
            }
            let byte = chunk[index];
            index += 1;
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(index);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The first quote, backslash or control character at or after `at` (or the end): the plain
/// run of a string's content, found eight bytes at a time. (Faster than `memchr2` on the short
/// strings of a transcript line, and it finds the control characters JSON refuses in a string.)
pub fn plain_run_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let chars = u64::from_le_bytes(*chunk);
        let control = chars.wrapping_sub(ONES * 0x20) & !chars;
        let quote = chars ^ (ONES * u64::from(b'"'));
        let quote = quote.wrapping_sub(ONES) & !quote;
        let backslash = chars ^ (ONES * u64::from(b'\\'));
        let backslash = backslash.wrapping_sub(ONES) & !backslash;
        let found = (control | quote | backslash) & HIGHS;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            return at;
        }
        at += 1;
    }
    at
}

/// A string checked as JSON: the index of its closing quote and whether it holds an escape,
/// for the string whose content starts at `start`; `None` at a raw control character, an
/// escape JSON does not have, or the end of the bytes.
pub fn checked_string_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut at = start;
    let mut escaped = false;
    loop {
        at = plain_run_end(bytes, at);
        match bytes.get(at)? {
            b'"' => return Some((at, escaped)),
            b'\\' => {
                escaped = true;
                at += escape_length(&bytes[at..])?;
            }
            byte if *byte >= 0x20 => at += 1,
            _ => return None,
        }
    }
}

/// The length of the escape `bytes` starts with (its backslash first): 2, or 6 for `\uXXXX`;
/// `None` when it is not a JSON escape.
#[inline]
fn escape_length(bytes: &[u8]) -> Option<usize> {
    match bytes.get(1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => hex_escape(bytes.get(2..6)?).map(|_| 6),
        _ => None,
    }
}

/// The value of the four hex digits of a `\u` escape (any value: a surrogate included).
fn hex_escape(digits: &[u8]) -> Option<u32> {
    let mut value = 0;
    for digit in digits {
        value = value * 16 + char::from(*digit).to_digit(16)?;
    }
    Some(value)
}

/// A string's content (between its quotes, checked by [`checked_string_end`]) with its escapes
/// decoded; `None` at a `\u` escape of a surrogate, which is left to a full parser (a pair is
/// one character, half of one is refused).
pub fn unescape(raw: &str) -> Option<String> {
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(backslash) = memchr::memchr(b'\\', rest.as_bytes()) {
        text.push_str(&rest[..backslash]);
        let escape = &rest.as_bytes()[backslash..];
        let length = escape_length(escape)?;
        text.push(match escape[1] {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => char::from_u32(hex_escape(&escape[2..6])?)?,
            other => char::from(other),
        });
        rest = &rest[backslash + length..];
    }
    text.push_str(rest);
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_ends_at_its_first_unescaped_quote() {
        let text = br#""a\"b\\" , "c""#;
        assert_eq!(string_end(text, 1), Some(7));
        assert_eq!(string_end(br#""a\""#, 1), None);
        assert_eq!(string_end(br#""a\"#, 1), None);
        assert_eq!(plain_string(br#"user","x"#), Some(&b"user"[..]));
        assert_eq!(plain_string(br#"us\u0065r""#), None);
        assert_eq!(plain_string(b"user"), None);
    }

    #[test]
    fn a_value_ends_after_its_closing_bracket_whatever_its_strings_hold() {
        let text = br#"{"a": "}]\"{", "b": [1, {"c": "\\"}]} tail"#;
        assert_eq!(value_end(text, 0), Some(text.len() - " tail".len()));
        assert_eq!(value_end(b"12.5e3, 4", 0), Some(6));
        assert_eq!(value_end(b"true}", 0), Some(4));
        assert_eq!(value_end(br#""x\"y" z"#, 0), Some(6));
        assert_eq!(value_end(b"[[1]", 0), None);
        assert_eq!(skip_blank(b" \t\r\n x", 0), 5);
        assert_eq!(skip_blank(b"  ", 1), 2);
    }

    #[test]
    fn nesting_fed_in_chunks_of_any_size_finds_the_same_end() {
        let text = br#"{"a": "x\\", "b": "\"}]\\", "c": [{"d": "\u007d"}]} tail"#;
        let end = text.len() - " tail".len();
        for size in 1..=text.len() {
            let mut nesting = Nesting::default();
            let found = text.chunks(size).enumerate().find_map(|(number, chunk)| {
                nesting.feed(chunk).map(|length| number * size + length)
            });
            assert_eq!(found, Some(end), "chunks of {size}");
        }
    }

    #[test]
    fn a_checked_string_refuses_what_json_refuses() {
        let checked = |text: &[u8]| checked_string_end(text, 1);
        assert_eq!(checked(br#""plain text here" x"#), Some((16, false)));
        assert_eq!(checked(br#""a\n\u00e9\/\"b""#), Some((15, true)));
        assert_eq!(checked(br#""\ud83d""#), Some((7, true)));
        for refused in [
            &b"\"a\tb\""[..],
            br#""\x""#,
            br#""\u00g0""#,
            br#""\u00""#,
            br#""cut"#,
            b"\"long enough to need two chunks\x01\"",
        ] {
            assert_eq!(
                checked(refused),
                None,
                "{}",
                String::from_utf8_lossy(refused)
            );
        }
        // Every position of the quote in the eight-byte scan.
        for length in 0..20 {
            let text = format!("\"{}\"", "x".repeat(length));
            assert_eq!(checked(text.as_bytes()), Some((length + 1, false)));
        }
    }

    #[test]
    fn escapes_decode_as_json_reads_them() {
        let raw = r#"a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac"#;
        let expected: String = serde_json::from_str(&format!("\"{raw}\"")).unwrap();
        assert_eq!(unescape(raw), Some(expected));
        assert_eq!(unescape("no escape"), Some("no escape".to_owned()));
        assert_eq!(unescape(r"\ud83d\ude00"), None);
        assert_eq!(unescape(r"\ude00"), None);
    }
}
