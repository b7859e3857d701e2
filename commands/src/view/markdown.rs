//! An answer's Markdown as HTML that can hold nothing active: raw HTML in the text becomes text,
//! a link keeps its target only when it is `http(s):` or `mailto:` (any other, `javascript:` or
//! `data:`, is its words alone), and an image is its description, never a request.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// Appends `markdown` rendered as HTML to `out`.
pub fn push_markdown(out: &mut String, markdown: &str) {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // Which opened links were dropped, so that their ends are dropped too (links nest in
    // pulldown-cmark's events only through images, whose ends are tracked the same way).
    let mut dropped: Vec<bool> = Vec::new();
    let events = Parser::new_ext(markdown, options).filter_map(|event| match event {
        // Raw HTML is shown as what was written.
        Event::Html(text) | Event::InlineHtml(text) => Some(Event::Text(text)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let allowed = is_allowed_target(&dest_url);
            dropped.push(!allowed);
            allowed.then_some(Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }))
        }
        Event::End(TagEnd::Link) => {
            if dropped.pop().unwrap_or(true) {
                None
            } else {
                Some(Event::End(TagEnd::Link))
            }
        }
        // An image becomes its description in brackets.
        Event::Start(Tag::Image { .. }) => Some(Event::Text(CowStr::Borrowed("[image: "))),
        Event::End(TagEnd::Image) => Some(Event::Text(CowStr::Borrowed("]"))),
        other => Some(other),
    });
    html::push_html(out, events);
}

/// Whether a link may lead to `target`: the web and mail only, whatever the case or blanks.
fn is_allowed_target(target: &str) -> bool {
    let lowered: String = target
        .trim()
        .chars()
        .filter(|character| !character.is_whitespace() && !character.is_control())
        .take(8)
        .collect::<String>()
        .to_ascii_lowercase();
    lowered.starts_with("https://")
        || lowered.starts_with("http://")
        || lowered.starts_with("mailto:")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(markdown: &str) -> String {
        let mut out = String::new();
        push_markdown(&mut out, markdown);
        out
    }

    #[test]
    fn markdown_is_rendered() {
        let html = render("# Title\n\nSome **bold** and `code`.\n\n```rust\nfn main() {}\n```\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("fn main() {}"), "{html}");
    }

    #[test]
    fn raw_html_stays_text() {
        let html = render(
            "<script>window.__pwned=1</script>\n\nok <img src=x onerror=alert(1)> </textarea>",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("</textarea>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn only_web_and_mail_links_keep_their_target() {
        let html = render(
            "[a](https://example.com) [b](javascript:alert(1)) [c]( JaVaScRiPt:x) [d](data:text/html,x) [e](mailto:a@b.c) ![f](https://example.com/x.png)",
        );
        assert!(
            html.contains(r#"<a href="https://example.com">a</a>"#),
            "{html}"
        );
        assert!(html.contains(r#"<a href="mailto:a@b.c">e</a>"#), "{html}");
        assert!(
            !html.to_ascii_lowercase().contains("javascript:alert"),
            "{html}"
        );
        assert!(!html.contains("href=\"data:"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("[image: f]"), "{html}");
        assert!(html.contains(" b "), "{html}");
    }
}
