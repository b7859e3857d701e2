//! Text someone else wrote, made safe inside HTML or SVG: the one escape for element text and
//! for attribute values (always written between double quotes), used by the SVG charts and by
//! `ctxhooks view`'s pages.

/// Appends `text` to `out` with the characters HTML and XML give a meaning to (`&`, `<`, `>`,
/// `"`) escaped: inside an element or a double-quoted attribute it stays text, whatever it holds
/// (`<script>`, `</textarea>`, an attribute's end).
pub fn escape_into(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(['&', '<', '>', '"']) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            _ => "&quot;",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// `text` escaped as [`escape_into`] does.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_stay_text() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & </textarea><svg onload=1>"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;/textarea&gt;&lt;svg onload=1&gt;"
        );
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
        assert_eq!(escape(""), "");
    }
}
