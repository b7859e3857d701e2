//! The index page of `view --all`: every session ctxhooks knows, a row each, linking to its page.

use std::fmt::Write as _;

use super::page::STYLE;
use crate::render::html::{escape, escape_into};
use crate::render::numbers::thousands;
use crate::render::time::to_the_minute;
use crate::sessions::catalog::KeptSession;

/// One session's row.
pub struct IndexRow<'a> {
    pub kept: &'a KeptSession,
    /// Its page's file name beside the index, when one was written.
    pub page: Option<String>,
    /// Its tokens (input side and output), when its report was read.
    pub tokens: Option<u64>,
    /// Its cost as a table's cell says it.
    pub cost: Option<String>,
}

/// The index page.
pub fn index_page(rows: &[IndexRow<'_>]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
<meta name=\"referrer\" content=\"no-referrer\">\n<title>Sessions · ctxhooks view</title>\n<style>",
    );
    out.push_str(STYLE);
    out.push_str(
        "table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #e5e7eb;vertical-align:top}td.n{text-align:right}",
    );
    let _ = write!(
        out,
        "</style>\n</head>\n<body>\n<h1>Sessions</h1>\n<p>{} session(s) ctxhooks knows, newest first.</p>\n\
<table id=\"sessions\"><thead><tr><th>title</th><th>project</th><th>first</th><th>last</th>\
<th>tokens</th><th>cost</th><th>compactions</th><th>transcript</th></tr></thead><tbody>\n",
        rows.len()
    );
    for row in rows {
        let summary = &row.kept.summary;
        let title = summary.title.as_deref().unwrap_or(&summary.session_id);
        out.push_str("<tr><td>");
        if let Some(page) = &row.page {
            let _ = write!(out, "<a href=\"{}\">", escape(page));
            escape_into(&mut out, title);
            out.push_str("</a>");
        } else {
            escape_into(&mut out, title);
            out.push_str(" <small>(no page)</small>");
        }
        out.push_str("<br><small>");
        escape_into(&mut out, &summary.session_id);
        out.push_str("</small></td><td>");
        escape_into(&mut out, summary.cwd.as_deref().unwrap_or("unknown"));
        let state: &str = row.kept.cleanup.state.into();
        let _ = writeln!(
            out,
            "</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{state}</td></tr>",
            escape(&to_the_minute(summary.first_time.as_ref())),
            escape(&to_the_minute(summary.last_time.as_ref())),
            row.tokens.map_or_else(|| "-".to_owned(), thousands),
            escape(row.cost.as_deref().unwrap_or("-")),
            row.kept.compactions,
        );
    }
    out.push_str("</tbody></table>\n</body>\n</html>\n");
    out
}
