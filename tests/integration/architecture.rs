//! The layout's rules, checked on the source: no module of a crate imports another that imports
//! it back, whether through one path or a ring of many (file by file, and folder by folder at
//! the crate's top level); the shared crate's top-level modules stand in layers that never point
//! up; the commands crate's shared homes import no capability. (That the hook binaries link
//! nothing but `ctxhooks-shared` is the hooks package's own test, `hooks/tests/dependencies.rs`.)
//!
//! The imports are read from the text: every `use` (groups expanded) and every path written in
//! the code that starts with `crate::`, `super::` or `self::`, resolved to the deepest module
//! that exists. A unit-test module at a file's end (`#[cfg(test)] mod tests`) is left out: it is
//! the file's own and is compiled into nothing else. So is every comment line (`//`, `///`,
//! `//!`): a doc that names a module (``[`super::load::unmatched_marks`]``) links to it, it does
//! not import it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module by its path in the crate (`["store", "kept"]`; the root is empty).
type Module = Vec<String>;

/// One crate's modules, each with the file that holds it.
fn modules(source: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut folders = vec![source.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs_err::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let relative = path.strip_prefix(source).unwrap().with_extension("");
            let mut parts: Module = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            match parts.last().map(String::as_str) {
                Some("lib" | "main") if parts.len() == 1 => parts.clear(),
                Some("mod") => {
                    parts.pop();
                }
                _ => {}
            }
            found.insert(parts, path);
        }
    }
    found
}

/// The file's code: its text without its unit-test module and without its comment lines.
fn code_of(text: &str) -> String {
    let without_tests = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at]);
    without_tests
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e` (whitespace already removed).
fn expand(path: &str) -> Vec<String> {
    let Some(open) = path.find('{') else {
        return vec![path.to_owned()];
    };
    let prefix = &path[..open];
    let mut items = Vec::new();
    let (mut depth, mut current) = (0_usize, String::new());
    for character in path[open + 1..].chars() {
        match character {
            '{' => {
                depth += 1;
                current.push(character);
            }
            '}' if depth == 0 => break,
            '}' => {
                depth -= 1;
                current.push(character);
            }
            ',' if depth == 0 => items.push(std::mem::take(&mut current)),
            _ => current.push(character),
        }
    }
    items.push(current);
    items
        .iter()
        .filter(|item| !item.is_empty())
        .flat_map(|item| expand(item))
        .map(|item| format!("{prefix}{item}"))
        .collect()
}

/// Every module path the text names: its `use` declarations and its qualified paths.
fn named_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::with_capacity(text.len());
    let mut remaining = text;
    while let Some(at) = find_use(remaining) {
        rest.push_str(&remaining[..at]);
        let after = &remaining[at + "use ".len()..];
        let end = after.find(';').unwrap_or(after.len());
        paths.extend(expand(&without_renames(&after[..end])));
        remaining = &after[(end + 1).min(after.len())..];
    }
    rest.push_str(remaining);
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = rest[from..].find(start) {
            let at = from + found;
            from = at + start.len();
            let preceded = rest[..at]
                .chars()
                .next_back()
                .is_some_and(|character| character.is_alphanumeric() || character == '_');
            if preceded {
                continue;
            }
            let path: String = rest[at..]
                .chars()
                .take_while(|character| character.is_alphanumeric() || "_:".contains(*character))
                .collect();
            paths.push(path);
        }
    }
    paths
}

/// A `use` declaration's body with its whitespace and its renames (`as name`) removed.
fn without_renames(body: &str) -> String {
    let mut kept = String::new();
    let mut words = body.split_whitespace();
    while let Some(word) = words.next() {
        if word == "as" {
            // The new name goes; what follows it in the same word (`,`, `}`) stays.
            let name = words.next().unwrap_or_default();
            kept.extend(
                name.chars()
                    .skip_while(|c| c.is_alphanumeric() || *c == '_'),
            );
        } else {
            kept.push_str(word);
        }
    }
    kept
}

/// Where the next `use` declaration starts (a word of its own, at a line's start after
/// `pub`/`pub(crate)` or indentation).
fn find_use(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find("use ") {
        let at = from + found;
        from = at + 4;
        let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
        let before = text[line_start..at].trim();
        if before.is_empty() || before == "pub" || before.starts_with("pub(") {
            return Some(at);
        }
    }
    None
}

/// The deepest module of `modules` that `path` (as written in `from`) names.
fn resolve(from: &Module, path: &str, modules: &BTreeMap<Module, PathBuf>) -> Option<Module> {
    let mut segments = path.split("::").filter(|segment| !segment.is_empty());
    let mut base: Module = match segments.next()? {
        "crate" => Vec::new(),
        "super" => from[..from.len().saturating_sub(1)].to_vec(),
        "self" => from.clone(),
        _ => return None,
    };
    let mut rest: Vec<&str> = segments.collect();
    while rest.first() == Some(&"super") {
        base.pop();
        rest.remove(0);
    }
    let mut best = None;
    for length in 0..=rest.len() {
        let mut candidate = base.clone();
        candidate.extend(rest[..length].iter().map(|segment| (*segment).to_owned()));
        if modules.contains_key(&candidate) {
            best = Some(candidate);
        }
    }
    best
}

/// The crate's imports, module to module (a module's uses of itself left out).
fn imports(source: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules(source);
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = fs_err::read_to_string(file).unwrap();
        for path in named_paths(&code_of(&text)) {
            if let Some(target) = resolve(module, &path, &modules)
                && target != *module
            {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
        edges.entry(module.clone()).or_default();
    }
    edges
}

/// The strongly connected groups of more than one module (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        found: Vec<Vec<Module>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a Module) {
        let number = state.index.len();
        state.index.insert(node, number);
        state.low.insert(node, number);
        state.stack.push(node);
        state.on_stack.insert(node);
        for next in state.edges.get(node).into_iter().flatten() {
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut group = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                group.push(member.clone());
                if member == node {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                state.found.push(group);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// The imports between the crate's top-level modules (folders and files), each module counted
/// as the top-level one that holds it.
fn top_level(edges: &BTreeMap<Module, BTreeSet<Module>>) -> BTreeMap<Module, BTreeSet<Module>> {
    let top = |module: &Module| module.iter().take(1).cloned().collect::<Module>();
    let mut collapsed: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (from, targets) in edges {
        let entry = collapsed.entry(top(from)).or_default();
        for target in targets {
            if top(target) != top(from) && !top(target).is_empty() && !top(from).is_empty() {
                entry.insert(top(target));
            }
        }
    }
    collapsed
}

fn named(group: &[Module]) -> String {
    group
        .iter()
        .map(|module| {
            if module.is_empty() {
                "crate".to_owned()
            } else {
                module.join("::")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The crates held to the rule, by their source folder: the two libraries, and the hooks
/// package (each of its binaries a crate of one file today).
const CRATES: [&str; 3] = ["shared/src", "commands/src", "hooks"];

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for source in CRATES {
        let edges = imports(&root.join(source));
        for group in cycles(&edges) {
            found.push(format!("{source}: modules {}", named(&group)));
        }
        for group in cycles(&top_level(&edges)) {
            found.push(format!("{source}: top-level modules {}", named(&group)));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

/// The top-level modules of `ctxhooks-shared` in layers, from the bottom up, as
/// docs/architecture.md lists them: a module imports only from its own layer or the ones below.
const SHARED_LAYERS: [&[&str]; 9] = [
    &[
        "lenient",
        "json_scan",
        "platform",
        "version",
        "model_name",
        "shell_word",
        "causes",
        "notes",
        "settings_file",
    ],
    &["store"],
    &["tool_input", "mcp_registration"],
    &["transcript"],
    &["keep", "compaction"],
    &["usage"],
    &["gauge"],
    &["hook"],
    &["test_support"],
];

#[test]
fn the_shared_crates_layers_never_point_up() {
    let edges = top_level(&imports(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("shared/src"),
    ));
    let layer = |module: &Module| {
        SHARED_LAYERS.iter().position(|layer| {
            module
                .first()
                .is_some_and(|name| layer.contains(&name.as_str()))
        })
    };
    let mut found = Vec::new();
    for (from, targets) in edges.iter().filter(|(from, _)| !from.is_empty()) {
        let Some(from_layer) = layer(from) else {
            found.push(format!(
                "`{}` is in no layer",
                named(std::slice::from_ref(from))
            ));
            continue;
        };
        for target in targets {
            if layer(target).is_none_or(|target_layer| target_layer > from_layer) {
                found.push(format!(
                    "`{}` imports `{}`, which is not below it",
                    named(std::slice::from_ref(from)),
                    named(std::slice::from_ref(target))
                ));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The commands crate's homes of what several capabilities share (`docs/architecture.md`):
/// below every capability, so that none of them imports a capability folder.
const COMMANDS_HOMES: [&str; 10] = [
    "prices",
    "facts",
    "render",
    "settings",
    "snapshots",
    "time",
    "output",
    "output_file",
    "links",
    "free_name",
];

#[test]
fn the_commands_shared_homes_import_no_capability() {
    let edges = imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("commands/src"));
    let home = |module: &Module| {
        module
            .first()
            .is_some_and(|top| COMMANDS_HOMES.contains(&top.as_str()))
    };
    let found: Vec<String> = edges
        .iter()
        .filter(|(from, _)| home(from))
        .flat_map(|(from, targets)| {
            targets
                .iter()
                .filter(|target| !target.is_empty() && !home(target))
                .map(move |target| {
                    format!(
                        "{} imports {}",
                        named(std::slice::from_ref(from)),
                        named(std::slice::from_ref(target))
                    )
                })
        })
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_reader_finds_what_a_cycle_is_made_of() {
    // The reader itself, on a crate written for it: a ring of three and a pair through `super`.
    let folder = std::env::temp_dir().join(format!("ctxhooks-architecture-{}", std::process::id()));
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n"),
        ("a.rs", "use crate::b::{Thing, other::More};\n"),
        ("b.rs", "pub mod inner;\npub fn f() { crate::c::g(); }\n"),
        ("b/inner.rs", "use super::super::d;\n"),
        ("c.rs", "pub(crate) use crate::a as alias;\n"),
        (
            "d.rs",
            "/// Not [`crate::a::f`].\nfn x() {}\n    // nor crate::b\n#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n",
        ),
    ];
    for (name, text) in files {
        let path = folder.join(name);
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        fs_err::write(path, text).unwrap();
    }
    let edges = imports(&folder);
    let module = |path: &str| path.split("::").map(ToOwned::to_owned).collect::<Module>();
    assert_eq!(
        cycles(&edges),
        vec![vec![module("a"), module("b"), module("c")]]
    );
    assert!(edges[&module("b::inner")].contains(&module("d")));
    assert!(edges[&module("d")].is_empty(), "{edges:?}");
    fs_err::remove_dir_all(&folder).unwrap();
}

/// The ways a module could write a command's output itself instead of through `output.rs`:
/// its found places, `(module, what)`. A command hands `output::emit` its result and the
/// `Format` `--json` chose; it never writes the branch between them (`if json {`) nor to stdout.
fn own_output(source: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (module, file) in modules(source) {
        if module == ["output"] {
            continue;
        }
        let code = code_of(&fs_err::read_to_string(&file).unwrap());
        for line in code.lines() {
            let trimmed = line.trim();
            let json_branch = trimmed.strip_prefix("if ").is_some_and(|condition| {
                condition.strip_suffix(" {").is_some_and(|flag| {
                    flag.rsplit('.').next() == Some("json")
                        && flag
                            .chars()
                            .all(|c| c.is_alphanumeric() || "_.".contains(c))
                })
            });
            // Asking whether stdout is a terminal writes nothing; the MCP server's stdout is
            // its protocol's channel, not a command's output.
            let writes_stdout = trimmed.contains("stdout()")
                && !trimmed.contains("stdout().is_terminal()")
                && !(module == ["mcp", "stdio"] && trimmed.contains("tokio::io::stdout()"));
            let prints = ["print!(", "println!("].iter().any(|name| {
                trimmed.match_indices(name).any(|(at, _)| {
                    !trimmed[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            });
            if json_branch || writes_stdout || prints {
                found.push((module.join("::"), trimmed.to_owned()));
            }
        }
    }
    found
}

#[test]
fn every_command_prints_through_output() {
    let found = own_output(&Path::new(env!("CARGO_MANIFEST_DIR")).join("commands/src"));
    let lines: Vec<String> = found
        .iter()
        .map(|(module, line)| format!("{module}: {line}"))
        .collect();
    assert!(lines.is_empty(), "{}", lines.join("\n"));
}

#[test]
fn the_output_check_sees_a_json_branch_a_print_and_stdout() {
    let folder = std::env::temp_dir().join(format!("ctxhooks-output-{}", std::process::id()));
    let files = [
        ("lib.rs", "pub mod a;\npub mod output;\n"),
        (
            "a.rs",
            "fn f() {\n    if args.render.json {\n    }\n    println!(\"x\");\n    \
             eprintln!(\"fine\");\n    let _ = std::io::stdout().is_terminal();\n    \
             std::io::stdout().lock();\n}\n",
        ),
        (
            "output.rs",
            "fn g() {\n    if json {\n    }\n    print!(\"y\");\n}\n",
        ),
    ];
    fs_err::create_dir_all(&folder).unwrap();
    for (name, text) in files {
        fs_err::write(folder.join(name), text).unwrap();
    }
    let found: Vec<String> = own_output(&folder)
        .into_iter()
        .map(|(_, line)| line)
        .collect();
    assert_eq!(
        found,
        [
            "if args.render.json {",
            "println!(\"x\");",
            "std::io::stdout().lock();"
        ]
    );
    fs_err::remove_dir_all(&folder).unwrap();
}
