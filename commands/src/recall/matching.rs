//! Finding a pattern in a text ignoring case, the match's place given in the text itself, never
//! in a lowercased copy: a character's lower case may have another byte length (`İ` two bytes,
//! `i̇` three; the Kelvin sign three, `k` one), so an offset into the copy is another place in the
//! text, or none.

use std::ops::Range;

/// `text` folded for a search ignoring case: each character lowercased on its own, so that a
/// pattern and a text fold alike whatever surrounds a character.
pub fn fold(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// Returns true if and only if `text` holds `needle` (already [`fold`]ed), ignoring case.
pub fn contains(text: &str, needle: &str) -> bool {
    fold(text).contains(needle)
}

/// The bytes of `text` where `needle` (already [`fold`]ed, not empty) first matches, ignoring
/// case: the characters whose lower case the match covers (a match that begins or ends inside
/// one character's lower case takes in the whole character).
pub fn find(text: &str, needle: &str) -> Option<Range<usize>> {
    if needle.is_empty() {
        return None;
    }
    let found = fold(text).find(needle)?;
    let end = found + needle.len();
    let mut folded = 0;
    let mut start = None;
    for (offset, character) in text.char_indices() {
        folded += character.to_lowercase().map(char::len_utf8).sum::<usize>();
        if start.is_none() && found < folded {
            start = Some(offset);
        }
        if end <= folded {
            return Some(start.unwrap_or(offset)..offset + character.len_utf8());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_is_placed_in_the_text_whatever_the_lengths_of_lower_cases_before_it() {
        // `İ` grows when lowercased, the Kelvin sign and `ẞ` shrink.
        for before in ["İ", "\u{212a}", "ẞ", "a", "é"] {
            let text = format!("{}NeEdLe{}", before.repeat(7), before.repeat(3));
            let at = before.len() * 7;
            assert_eq!(
                find(&text, &fold("needle")),
                Some(at..at + 6),
                "after {before}"
            );
            assert!(contains(&text, &fold("NEEDLE")));
        }
        // A pattern that is part of a character's lower case takes in the whole character.
        assert_eq!(find("xİy", "i"), Some(1..3));
        assert_eq!(find("xİy", &fold("İY")), Some(1..4));
        assert_eq!(find("abc", "d"), None);
        assert_eq!(find("abc", ""), None);
    }
}
