//! The architecture chapter's layering (`docs/src/architecture.md`) is the code's: every reference one top-level module of `src/` makes to
//! another (`use crate::…` lines, multi-line `use crate::{a, b::{…}}` groups, `super::` paths
//! that climb to the crate root, and `crate::x::…` paths in code) is an arrow, and the graph of
//! those arrows must follow the chapter's "Dependencies point one way:" paragraph, which this test
//! parses (so the book and the code cannot drift apart):
//!
//! - the line `` `api` ← `model` ← … ← `runtime` ``: a module on it uses only modules to its left;
//! - after "Beside that line:", one clause per module off the line, `` `x` uses … and is used by
//!   … ``: what `x` uses ("up to `m`" is `m` and everything left of it on the line, "nothing",
//!   or, for `main.rs`, "any of them") and the only modules that may use `x`;
//! - and no cycle between top-level modules.
//!
//! `main.rs` is the binary (its `cantonscope::…` paths count as its arrows) and `lib.rs` the crate
//! root, which only declares the modules; nothing may use either (`crate::x` for an `x` that is
//! no module is an item of the root). Test code inside `src/` counts like any other code.
//! Comments, doc links and string literals do not count. A failure names the file and line of
//! every arrow at fault.
//!
//! Between files, two more rules (every `crate::`, `super::` and `self::` path in code resolved
//! to the file of its longest prefix that is a module):
//!
//! - [`no_pane_uses_another_pane`]: a file of a pane (`src/panes/X…`) names no other pane
//!   (`crate::panes::Y…`); the pane kit under `src/panes/` ([`PANE_KIT`]: `panes/mod.rs` with
//!   its items, `form`, `new_file`, `export`) is no pane, and every pane may use it;
//! - [`no_cycle_between_files`]: no cycle between files, the references between a module and
//!   its own ancestors or descendants aside (`use super::*` in a child, `self::x` in a parent);
//!   a failure names each arrow of the cycle with its file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The README sentence that opens the rules.
const MARKER: &str = "Dependencies point one way:";
/// The phrase that opens the clauses of the modules off the line.
const BESIDE: &str = "Beside that line:";

/// The crate root (`lib.rs`) and the binary (`main.rs`), as modules.
const LIB: &str = "lib";
const MAIN: &str = "main";

/// What a module off the line may use.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Uses {
    Any,
    These(BTreeSet<String>),
}

/// The layering the README states.
#[derive(Debug)]
struct Rules {
    /// The line, left (lowest) to right.
    line: Vec<String>,
    /// Each module off the line: what it uses and who may use it.
    beside: BTreeMap<String, (Uses, BTreeSet<String>)>,
}

/// One reference from a file to another top-level module.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Arrow {
    from: String,
    to: String,
    file: String,
    line: usize,
}

// ---------------------------------------------------------------------------------------------
// The README's rules
// ---------------------------------------------------------------------------------------------

/// The backticked names in `text`, in order (`main.rs` read as the module `main`).
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|name| match name {
            "main.rs" => MAIN.to_string(),
            other => other.to_string(),
        })
        .collect()
}

/// `text` without its parenthesised asides.
fn without_asides(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Parses the "Dependencies point one way:" paragraph of `readme`.
fn parse_rules(readme: &str) -> Result<Rules, String> {
    let start = readme
        .find(MARKER)
        .ok_or_else(|| format!("the README has no {MARKER:?} sentence"))?;
    let rest = &readme[start + MARKER.len()..];
    let paragraph = rest[..rest.find("\n\n").unwrap_or(rest.len())].replace('\n', " ");
    let chain_end = paragraph.find(';').unwrap_or(paragraph.len());
    let mut line = Vec::new();
    for (i, piece) in paragraph[..chain_end].split('←').enumerate() {
        let name = backticked(piece)
            .into_iter()
            .next()
            .ok_or_else(|| format!("no module in {piece:?} of the line"))?;
        if i > 0 && !piece.trim_start().starts_with('`') {
            return Err(format!("the line reads {piece:?} after a ←"));
        }
        line.push(name);
    }
    if line.len() < 2 {
        return Err(format!("no line `a` ← `b` … after {MARKER:?}"));
    }
    let up_to = |name: &str| -> Result<Vec<String>, String> {
        let i = line
            .iter()
            .position(|m| m == name)
            .ok_or_else(|| format!("\"up to `{name}`\": `{name}` is not on the line"))?;
        Ok(line[..=i].to_vec())
    };
    let mut beside = BTreeMap::new();
    if let Some(at) = paragraph.find(BESIDE) {
        let clauses = without_asides(&paragraph[at + BESIDE.len()..]);
        let clauses = &clauses[..clauses.find(". ").unwrap_or(clauses.len())];
        for clause in clauses.split(';') {
            let subject = backticked(clause)
                .into_iter()
                .next()
                .ok_or_else(|| format!("no module in the clause {clause:?}"))?;
            let after = &clause[clause.find("` ").map_or(0, |i| i + 2)..];
            let after = after
                .trim_start()
                .strip_prefix("uses")
                .ok_or_else(|| format!("the clause of `{subject}` does not say what it uses"))?;
            let (uses_text, users_text) = match after.find("is used by") {
                Some(i) => (&after[..i], &after[i + "is used by".len()..]),
                None => (after, ""),
            };
            let uses = if uses_text.trim_start().starts_with("any") {
                Uses::Any
            } else if uses_text.trim_start().starts_with("nothing") {
                Uses::These(BTreeSet::new())
            } else {
                let mut set = BTreeSet::new();
                let mut text = uses_text;
                if let Some(i) = text.find("up to `") {
                    let name = backticked(&text[i..])
                        .into_iter()
                        .next()
                        .unwrap_or_default();
                    set.extend(up_to(&name)?);
                    text = &text[i + "up to `".len() + name.len() + 1..];
                }
                set.extend(backticked(text));
                if set.is_empty() {
                    return Err(format!("the clause of `{subject}` names nothing it uses"));
                }
                Uses::These(set)
            };
            let users: BTreeSet<String> = backticked(users_text).into_iter().collect();
            if beside.insert(subject.clone(), (uses, users)).is_some() {
                return Err(format!("`{subject}` has two clauses"));
            }
        }
    }
    if let Some(both) = line.iter().find(|m| beside.contains_key(*m)) {
        return Err(format!("`{both}` is both on the line and beside it"));
    }
    Ok(Rules { line, beside })
}

impl Rules {
    /// Every module the rules name.
    fn modules(&self) -> BTreeSet<String> {
        let mut all: BTreeSet<String> = self.line.iter().cloned().collect();
        for (name, (uses, users)) in &self.beside {
            all.insert(name.clone());
            all.extend(users.iter().cloned());
            if let Uses::These(set) = uses {
                all.extend(set.iter().cloned());
            }
        }
        all
    }

    /// Whether `from` may use `to`, or why not.
    fn check(&self, from: &str, to: &str) -> Result<(), String> {
        let pos = |m: &str| self.line.iter().position(|x| x == m);
        if to == LIB || to == MAIN {
            return Err(format!("nothing may use `{to}`"));
        }
        if from != LIB {
            match (pos(from), pos(to), self.beside.get(from)) {
                (Some(i), Some(j), _) if j > i => {
                    return Err(format!(
                        "`{to}` is right of `{from}` on the README's line (an upward arrow)"
                    ));
                }
                (Some(_), _, _) => {}
                (None, _, Some((Uses::Any, _))) => {}
                (None, _, Some((Uses::These(set), _))) if set.contains(to) => {}
                (None, _, Some(_)) => {
                    return Err(format!("the README does not say that `{from}` uses `{to}`"));
                }
                (None, _, None) => {
                    return Err(format!("the README does not place `{from}`"));
                }
            }
        }
        match self.beside.get(to) {
            Some((_, users)) if !users.contains(from) => Err(format!(
                "the README names who may use `{to}`, and `{from}` is not one of them"
            )),
            _ => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The arrows in the code
// ---------------------------------------------------------------------------------------------

/// `source` with its comments and string and character literals blanked out (line breaks kept,
/// so line numbers stay).
fn strip(source: &str) -> String {
    let s: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, run: &[char]| {
        for &c in run {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    let mut i = 0;
    while i < s.len() {
        let at = |k: usize| s.get(i + k).copied().unwrap_or('\0');
        let prev_ident = i > 0 && (s[i - 1].is_alphanumeric() || s[i - 1] == '_');
        if at(0) == '/' && at(1) == '/' {
            let end = (i..s.len()).find(|&k| s[k] == '\n').unwrap_or(s.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else if at(0) == '/' && at(1) == '*' {
            let (mut k, mut depth) = (i + 2, 1);
            while k < s.len() && depth > 0 {
                if s[k] == '/' && s.get(k + 1) == Some(&'*') {
                    depth += 1;
                    k += 2;
                } else if s[k] == '*' && s.get(k + 1) == Some(&'/') {
                    depth -= 1;
                    k += 2;
                } else {
                    k += 1;
                }
            }
            let end = k.min(s.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else if !prev_ident && (at(0) == 'r' || (at(0) == 'b' && at(1) == 'r')) && {
            let k = i + if at(0) == 'b' { 2 } else { 1 };
            let hashes = s[k.min(s.len())..]
                .iter()
                .take_while(|&&c| c == '#')
                .count();
            s.get(k + hashes) == Some(&'"')
        } {
            // A raw string: r"…", r#"…"#, br"…".
            let k = i + if at(0) == 'b' { 2 } else { 1 };
            let hashes = s[k..].iter().take_while(|&&c| c == '#').count();
            let mut end = k + hashes + 1;
            while end < s.len() {
                if s[end] == '"'
                    && s[end + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&c| c == '#')
                        .count()
                        == hashes
                {
                    end += 1 + hashes;
                    break;
                }
                end += 1;
            }
            let end = end.min(s.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else if at(0) == '"' {
            let mut end = i + 1;
            while end < s.len() && s[end] != '"' {
                end += if s[end] == '\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(s.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else if at(0) == '\'' && (at(1) == '\\' || (at(1) != '\0' && at(2) == '\'')) {
            // A character literal ('x', '\n', '\'', '\u{1b}'); a lifetime has no closing quote.
            let mut end = i + 1;
            while end < s.len() && s[end] != '\'' {
                end += if s[end] == '\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(s.len());
            blank(&mut out, &s[i..end]);
            i = end;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// A token of stripped code, with its line.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let s: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                i += 1;
            }
            let mut text: String = s[start..i].iter().collect();
            // A raw identifier: r#type.
            if text == "r" && s.get(i) == Some(&'#') {
                let rest = i + 1;
                let mut k = rest;
                while k < s.len() && (s[k].is_alphanumeric() || s[k] == '_') {
                    k += 1;
                }
                text = s[rest..k].iter().collect();
                i = k;
            }
            out.push(Token { text, line });
        } else if c == ':' && s.get(i + 1) == Some(&':') {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

/// A path segment and the line it is on.
type Segment = (String, usize);

/// Expands the use tree in `toks` (after `use`, before `;`) into its paths.
fn use_paths(toks: &[Token], prefix: &[Segment], out: &mut Vec<Vec<Segment>>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        match t.text.as_str() {
            "::" => i += 1,
            "{" => {
                // The group: split its items at top-level commas.
                let mut depth = 0;
                let mut start = i + 1;
                let mut k = i + 1;
                while k < toks.len() {
                    match toks[k].text.as_str() {
                        "{" => depth += 1,
                        "}" if depth == 0 => {
                            use_paths(&toks[start..k], &path, out);
                            break;
                        }
                        "}" => depth -= 1,
                        "," if depth == 0 => {
                            use_paths(&toks[start..k], &path, out);
                            start = k + 1;
                        }
                        _ => {}
                    }
                    k += 1;
                }
                return;
            }
            "as" | "*" => break,
            _ => {
                path.push((t.text.clone(), t.line));
                i += 1;
            }
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The module path of a file under `src/` (`api/scan/mod.rs` → `[api, scan]`; `lib.rs` and
/// `main.rs` → `[]`).
fn module_path(rel: &str) -> Vec<String> {
    let rel = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == [LIB] || parts == [MAIN] {
        parts.clear();
    }
    parts
}

/// The top-level module a file belongs to.
fn top_module(rel: &str) -> String {
    match rel {
        "lib.rs" => LIB.to_string(),
        "main.rs" => MAIN.to_string(),
        _ => module_path(rel)[0].clone(),
    }
}

/// The top-level modules of `files` (not counting `lib.rs` and `main.rs`).
fn top_modules(files: &[(String, String)]) -> BTreeSet<String> {
    files
        .iter()
        .map(|(rel, _)| top_module(rel))
        .filter(|m| m != LIB && m != MAIN)
        .collect()
}

/// The top-level module `path` (used in the module `module`) names, with the line of the
/// segment that names it; `None` for paths into the same top-level module or another crate.
fn target(
    path: &[Segment],
    module: &[String],
    is_main: bool,
    modules: &BTreeSet<String>,
) -> Option<(String, usize)> {
    let first = path.first()?;
    let at_root = |rest: &[Segment]| -> Option<(String, usize)> {
        let (name, line) = rest.first()?;
        if modules.contains(name) {
            Some((name.clone(), *line))
        } else {
            Some((LIB.to_string(), *line))
        }
    };
    match first.0.as_str() {
        "crate" if !is_main => at_root(&path[1..]),
        "cantonscope" if is_main => at_root(&path[1..]),
        "super" => {
            let ups = path.iter().take_while(|(s, _)| s == "super").count();
            let base = module.len().checked_sub(ups)?;
            if base == 0 {
                at_root(&path[ups..])
            } else {
                None
            }
        }
        "self" if module.is_empty() && !is_main => at_root(&path[1..]),
        // A 2018 path from the crate root (`use api::Call;` in lib.rs).
        name if module.is_empty() && !is_main && modules.contains(name) => at_root(path),
        _ => None,
    }
}

/// A path in code (its segments, with their lines) and the module it is written in (the file's
/// module path, then the inline modules around it).
type CodePath = (Vec<Segment>, Vec<String>);

/// Every path of one file (`rel` under `src/`) that starts at `crate`, `super`, `self` or
/// `cantonscope`: the paths of its `use` trees and those in its code (not in comments, doc
/// links or literals).
fn paths_of(rel: &str, source: &str) -> Vec<CodePath> {
    let toks = tokens(&strip(source));
    let file_module = module_path(rel);
    let mut out = Vec::new();
    // Inline modules (`mod tests {`): the brace depth each opened at, and its name.
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let module: Vec<String> = file_module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(_, m)| m.clone()))
            .collect();
        let t = toks[i].text.as_str();
        let after_path_sep = i > 0 && (toks[i - 1].text == "::" || toks[i - 1].text == "$");
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(d, _)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if toks.get(i + 2).is_some_and(|t| t.text == "{") => {
                inline.push((depth, toks[i + 1].text.clone()));
                depth += 1;
                i += 3;
                continue;
            }
            "use" if !after_path_sep => {
                let end = (i..toks.len())
                    .find(|&k| toks[k].text == ";")
                    .unwrap_or(toks.len());
                let mut paths = Vec::new();
                use_paths(&toks[i + 1..end], &[], &mut paths);
                out.extend(paths.into_iter().map(|path| (path, module.clone())));
                i = end + 1;
                continue;
            }
            "crate" | "super" | "self" | "cantonscope" if !after_path_sep => {
                let mut path = vec![(t.to_string(), toks[i].line)];
                let mut k = i + 1;
                while toks.get(k).is_some_and(|t| t.text == "::")
                    && toks.get(k + 1).is_some_and(|t| {
                        t.text
                            .starts_with(|c: char| c.is_alphanumeric() || c == '_')
                    })
                {
                    path.push((toks[k + 1].text.clone(), toks[k + 1].line));
                    k += 2;
                }
                if path.len() > 1 {
                    out.push((path, module));
                }
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The arrows of one file (`rel` under `src/`) to other top-level modules.
fn arrows_of(rel: &str, source: &str, modules: &BTreeSet<String>) -> Vec<Arrow> {
    let is_main = rel == "main.rs";
    let from = top_module(rel);
    paths_of(rel, source)
        .into_iter()
        .filter_map(|(path, module)| target(&path, &module, is_main, modules))
        .filter(|(to, _)| *to != from)
        .map(|(to, line)| Arrow {
            from: from.clone(),
            to,
            file: format!("src/{rel}"),
            line,
        })
        .collect()
}

/// Every `.rs` file under `dir`, as paths relative to `root`, sorted.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src");
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    out.sort();
}

// ---------------------------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------------------------

/// The strongly connected components (of more than one node) of a graph: the cycles.
fn cycles(edges: &BTreeSet<(String, String)>) -> Vec<BTreeSet<String>> {
    let mut next: BTreeMap<&String, Vec<&String>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| -> BTreeSet<&String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for b in next.get(n).into_iter().flatten() {
                if seen.insert(*b) {
                    stack.push(*b);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<&String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for n in &nodes {
        let component: BTreeSet<String> = nodes
            .iter()
            .filter(|m| reaches[*n].contains(**m) && reaches[*m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        if component.len() > 1 && !out.contains(&component) {
            out.push(component);
        }
    }
    out
}

/// Everything wrong with `files` (path under `src/`, source) against the README text: one line
/// per problem, naming files and lines.
fn problems(readme: &str, files: &[(String, String)]) -> Vec<String> {
    let rules = match parse_rules(readme) {
        Ok(rules) => rules,
        Err(e) => return vec![format!("README: {e}")],
    };
    let modules = top_modules(files);
    let mut out = Vec::new();
    let named = rules.modules();
    for m in &modules {
        if !named.contains(m) {
            out.push(format!(
                "src/{m}: the README's {MARKER:?} paragraph does not place `{m}`"
            ));
        }
    }
    let present: BTreeSet<String> = files.iter().map(|(rel, _)| top_module(rel)).collect();
    for m in &named {
        if !present.contains(m) {
            out.push(format!("README: `{m}` is no module of src/"));
        }
    }
    let arrows: Vec<Arrow> = files
        .iter()
        .flat_map(|(rel, source)| arrows_of(rel, source, &modules))
        .collect();
    let mut by_edge: BTreeMap<(String, String), Vec<&Arrow>> = BTreeMap::new();
    for a in &arrows {
        by_edge
            .entry((a.from.clone(), a.to.clone()))
            .or_default()
            .push(a);
    }
    let at = |list: &[&Arrow]| -> String {
        let places: BTreeSet<(&str, usize)> =
            list.iter().map(|a| (a.file.as_str(), a.line)).collect();
        places
            .iter()
            .map(|(file, line)| format!("{file}:{line}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for ((from, to), list) in &by_edge {
        if let Err(why) = rules.check(from, to) {
            out.push(format!("{from} → {to}: {why}: {}", at(list)));
        }
    }
    let edges: BTreeSet<(String, String)> = by_edge.keys().cloned().collect();
    for component in cycles(&edges) {
        let inside: Vec<String> = by_edge
            .iter()
            .filter(|((a, b), _)| component.contains(a) && component.contains(b))
            .map(|((a, b), list)| format!("{a} → {b} ({})", at(list)))
            .collect();
        out.push(format!(
            "cycle between {}: {}",
            component.iter().cloned().collect::<Vec<_>>().join(", "),
            inside.join("; ")
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Between files
// ---------------------------------------------------------------------------------------------

/// The modules directly under `src/panes/` that are no pane but the kit every pane may use:
/// `panes/mod.rs` itself (the [`Pane`] trait, `Out`, `Shared`: items of `panes`, not modules),
/// `form` (the query panes' form over a table), `new_file` (saving without overwriting) and
/// `export` (the export dialog). Every other module under `src/panes/` is a pane.
const PANE_KIT: [&str; 3] = ["form", "new_file", "export"];

/// One reference from a file to another (both under `src/`), with its line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct FileArrow {
    from: String,
    to: String,
    line: usize,
}

/// The module `path` (written in `module`) names, from the crate root, and the line of its
/// last segment; `None` for a path that does not start at `crate`, `super` or `self`.
fn absolute(path: &[Segment], module: &[String]) -> Option<(Vec<String>, usize)> {
    let line = path.last()?.1;
    let names = |rest: &[Segment]| rest.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
    let abs = match path.first()?.0.as_str() {
        "crate" => names(&path[1..]),
        "self" => module.iter().cloned().chain(names(&path[1..])).collect(),
        "super" => {
            let ups = path.iter().take_while(|(s, _)| s == "super").count();
            let base = module.len().checked_sub(ups)?;
            module[..base]
                .iter()
                .cloned()
                .chain(names(&path[ups..]))
                .collect()
        }
        _ => return None,
    };
    Some((abs, line))
}

/// Whether one module path is the other's ancestor (or the same).
fn related(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The references between files of `files` (the binary, `main.rs`, aside: nothing refers to
/// it), but those between a module and its own ancestors or descendants: a path resolves to the
/// file of its longest prefix that is a module.
fn file_arrows(files: &[(String, String)]) -> Vec<FileArrow> {
    let by_module: BTreeMap<Vec<String>, &str> = files
        .iter()
        .filter(|(rel, _)| rel != "main.rs")
        .map(|(rel, _)| (module_path(rel), rel.as_str()))
        .collect();
    let mut out = Vec::new();
    for (rel, source) in files.iter().filter(|(rel, _)| rel != "main.rs") {
        let from = module_path(rel);
        for (path, module) in paths_of(rel, source) {
            let Some((abs, line)) = absolute(&path, &module) else {
                continue;
            };
            let Some((to_module, to)) = (0..=abs.len())
                .rev()
                .find_map(|n| by_module.get_key_value(&abs[..n]))
            else {
                continue;
            };
            if !related(&from, to_module) {
                out.push(FileArrow {
                    from: format!("src/{rel}"),
                    to: format!("src/{to}"),
                    line,
                });
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every cycle between the files of `files`: one line per cycle, naming its files and the file
/// and line of each of its arrows.
fn file_cycles(files: &[(String, String)]) -> Vec<String> {
    let mut by_edge: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for a in file_arrows(files) {
        by_edge.entry((a.from, a.to)).or_default().push(a.line);
    }
    let edges: BTreeSet<(String, String)> = by_edge.keys().cloned().collect();
    cycles(&edges)
        .into_iter()
        .map(|component| {
            let inside: Vec<String> = by_edge
                .iter()
                .filter(|((a, b), _)| component.contains(a) && component.contains(b))
                .map(|((a, b), lines)| {
                    let at: Vec<String> = lines.iter().map(|l| format!("{a}:{l}")).collect();
                    format!("{a} → {b} ({})", at.join(", "))
                })
                .collect();
            format!(
                "cycle between {}: {}",
                component.iter().cloned().collect::<Vec<_>>().join(", "),
                inside.join("; ")
            )
        })
        .collect()
}

/// Every reference of a pane's file to another pane (a module under `src/panes/` that is not
/// in [`PANE_KIT`]): one line each, with its file and line.
fn pane_imports(files: &[(String, String)]) -> Vec<String> {
    let panes: BTreeSet<String> = files
        .iter()
        .map(|(rel, _)| module_path(rel))
        .filter(|m| m.len() >= 2 && m[0] == "panes" && !PANE_KIT.contains(&m[1].as_str()))
        .map(|m| m[1].clone())
        .collect();
    let mut out = Vec::new();
    for (rel, source) in files {
        let from = module_path(rel);
        if from.len() < 2 || from[0] != "panes" || !panes.contains(&from[1]) {
            continue;
        }
        for (path, module) in paths_of(rel, source) {
            if let Some((abs, line)) = absolute(&path, &module)
                && abs.len() >= 2
                && abs[0] == "panes"
                && abs[1] != from[1]
                && panes.contains(&abs[1])
            {
                out.push(format!(
                    "src/{rel}:{line}: the {} pane uses the {} pane",
                    from[1], abs[1]
                ));
            }
        }
    }
    out
}

/// The sources under `src/` (path under `src/`, text).
fn sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names = Vec::new();
    rust_files(&src, &src, &mut names);
    assert!(
        names.len() > 50,
        "found the sources ({} files)",
        names.len()
    );
    names
        .into_iter()
        .map(|rel| {
            let source = std::fs::read_to_string(src.join(&rel)).expect("a source file");
            (rel, source)
        })
        .collect()
}

#[test]
fn the_modules_follow_the_readme_layering() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("docs/src/architecture.md")).expect("book");
    let files = sources();
    let found = problems(&readme, &files);
    assert!(
        found.is_empty(),
        "the code and the README's layering disagree (fix the code, or the README where it is \
         wrong):\n{}",
        found.join("\n")
    );
    // The check saw real arrows: the line's top uses the modules below it.
    let modules = top_modules(&files);
    let arrows: Vec<Arrow> = files
        .iter()
        .flat_map(|(rel, source)| arrows_of(rel, source, &modules))
        .collect();
    assert!(arrows.iter().any(|a| a.from == "runtime" && a.to == "app"));
    assert!(arrows.iter().any(|a| a.from == MAIN && a.to == "headless"));
}

#[test]
fn the_checker_finds_a_cycle_an_upward_arrow_and_an_unlisted_user() {
    let readme = "# x\n\nDependencies point one way: `api` ← `model` ← `ui`, each using only \
                  modules to its left. Beside that line: `demo` uses nothing (it stands \
                  alone, `api` aside) and is used by `ui` and `main.rs`; `main.rs` uses any \
                  of them. More text.\n\nNext paragraph `runtime`.\n";
    let files = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
            .collect()
    };
    let good = files(&[
        (
            "lib.rs",
            "pub mod api;\npub mod model;\npub mod ui;\npub mod demo;\n",
        ),
        (
            "api/mod.rs",
            "//! No arrows: `crate::ui` in a comment, \"crate::ui\" in a string.\nfn f() -> &'static str { let c = '\"'; r#\"crate::ui::x\"# }\n",
        ),
        (
            "model/mod.rs",
            "use crate::{\n    api::Call,\n};\nmod tests {\n    use super::*;\n}\n",
        ),
        (
            "ui/mod.rs",
            "fn g() { super::model::h(); crate::demo::run(); }\n",
        ),
        ("ui/table/mod.rs", "use super::super::model::Row;\n"),
        ("demo/mod.rs", "pub fn run() {}\n"),
        ("main.rs", "use cantonscope::{demo, ui};\n"),
    ]);
    assert_eq!(problems(readme, &good), Vec::<String>::new());

    let bad = files(&[
        (
            "lib.rs",
            "pub mod api;\npub mod model;\npub mod ui;\npub mod demo;\n",
        ),
        ("api/mod.rs", "//! api\nuse crate::model::Summary;\n"),
        (
            "model/mod.rs",
            "use crate::{\n    api::Call,\n    ui::{self, Theme},\n};\n",
        ),
        ("model/deep/mod.rs", "fn f() { crate::demo::run(); }\n"),
        ("ui/mod.rs", "use super::model::Summary;\n"),
        (
            "demo/mod.rs",
            "mod tests {\n    use super::super::runtime::X;\n}\n",
        ),
        ("runtime/mod.rs", "\n"),
        ("main.rs", "use cantonscope::demo;\n"),
    ]);
    let found = problems(readme, &bad);
    let has = |needle: &str| found.iter().any(|p| p.contains(needle));
    assert!(
        has("api → model: `model` is right of `api`") && has("src/api/mod.rs:2"),
        "{found:#?}"
    );
    assert!(
        has("model → ui: `ui` is right of `model`") && has("src/model/mod.rs:3"),
        "{found:#?}"
    );
    assert!(
        has("model → demo: the README names who may use `demo`") && has("src/model/deep/mod.rs:1"),
        "{found:#?}"
    );
    assert!(
        has("demo → runtime: the README does not say that `demo` uses `runtime`")
            && has("src/demo/mod.rs:2"),
        "{found:#?}"
    );
    assert!(has("cycle between api, model, ui"), "{found:#?}");
    assert!(
        has(
            "src/runtime: the README's \"Dependencies point one way:\" paragraph does not place `runtime`"
        ),
        "{found:#?}"
    );
    assert!(
        !found.iter().any(|p| p.starts_with("ui → model")),
        "a downward arrow is fine: {found:#?}"
    );
    assert_eq!(found.len(), 6, "{found:#?}");
}

#[test]
fn the_readme_rules_parse() {
    let readme = "Dependencies point one way: `a` ← `b` ← `c`; more. Beside that line: `n` uses \
                  up to `b` (its `z` aside), and `m`, and is used by `c`; `m` uses nothing and is \
                  used by `n`; `main.rs` uses any of them.\n";
    let rules = parse_rules(readme).expect("parses");
    assert_eq!(rules.line, ["a", "b", "c"]);
    let set = |names: &[&str]| {
        names
            .iter()
            .map(|s| (*s).to_string())
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(
        rules.beside["n"],
        (Uses::These(set(&["a", "b", "m"])), set(&["c"]))
    );
    assert_eq!(rules.beside["m"], (Uses::These(set(&[])), set(&["n"])));
    assert_eq!(rules.beside["main"], (Uses::Any, set(&[])));
    assert!(rules.check("c", "a").is_ok());
    assert!(rules.check("a", "c").is_err());
    assert!(rules.check("n", "c").is_err(), "beyond up to");
    assert!(rules.check("b", "n").is_err(), "not among n's users");
    assert!(rules.check("c", "n").is_ok());
    assert!(rules.check("main", "c").is_ok());
    assert!(rules.check("c", "main").is_err());
    assert!(parse_rules("no such sentence").is_err());
    assert!(parse_rules("Dependencies point one way: `a` ← b.\n").is_err());
}

#[test]
fn no_pane_uses_another_pane() {
    let found = pane_imports(&sources());
    assert!(
        found.is_empty(),
        "a pane uses another pane (move what they share to `ui`, or to the pane kit):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_cycle_between_files() {
    let files = sources();
    let found = file_cycles(&files);
    assert!(
        found.is_empty(),
        "files that use each other (move what both need to where both can use it one way):\n{}",
        found.join("\n")
    );
    // The check saw real arrows between files.
    let arrows = file_arrows(&files);
    assert!(
        arrows
            .iter()
            .any(|a| a.from.starts_with("src/runtime/") && a.to.starts_with("src/app/"))
    );
}

#[test]
fn the_file_checker_finds_a_cycle_and_a_pane_using_a_pane() {
    let files = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
            .collect()
    };
    let tree = files(&[
        ("lib.rs", "pub mod ui;\npub mod panes;\n"),
        (
            "ui/mod.rs",
            "pub mod form;\npub mod load;\nuse self::form::Form;\n",
        ),
        (
            "ui/form.rs",
            "//! Not an arrow: [`crate::ui::load`], \"super::load\".\nuse super::load::Load;\nuse super::Theme;\n",
        ),
        (
            "ui/load.rs",
            "mod tests {\n    use super::*;\n}\nfn f() {\n    crate::ui::form::g();\n}\n",
        ),
        (
            "panes/mod.rs",
            "pub mod form;\npub mod a;\npub mod b;\nuse self::a::A;\n",
        ),
        ("panes/form.rs", "use crate::ui::load::Load;\n"),
        ("panes/a/mod.rs", "use crate::panes::{Pane, form::Kit};\n"),
        (
            "panes/a/view.rs",
            "use super::super::b::B;\nuse crate::ui::load::Load;\n",
        ),
        ("panes/b.rs", "use crate::panes::a::view::Row;\n"),
    ]);
    let found = file_cycles(&tree);
    assert_eq!(
        found,
        [
            "cycle between src/panes/a/view.rs, src/panes/b.rs: \
             src/panes/a/view.rs → src/panes/b.rs (src/panes/a/view.rs:1); \
             src/panes/b.rs → src/panes/a/view.rs (src/panes/b.rs:1)",
            "cycle between src/ui/form.rs, src/ui/load.rs: \
             src/ui/form.rs → src/ui/load.rs (src/ui/form.rs:2); \
             src/ui/load.rs → src/ui/form.rs (src/ui/load.rs:5)",
        ],
        "a module and its ancestors (ui/mod.rs, the tests of ui/load.rs) make no cycle"
    );
    assert_eq!(
        pane_imports(&tree),
        [
            "src/panes/a/view.rs:1: the a pane uses the b pane",
            "src/panes/b.rs:1: the b pane uses the a pane",
        ],
        "every pane may use the kit (panes/form.rs, panes/mod.rs)"
    );
}

// ---------------------------------------------------------------------------------------------
// Data access stays below the panes
// ---------------------------------------------------------------------------------------------

/// What a pane must not name (in code: comments and strings do not count): the page walk and
/// the summarizer (the timeline's and the loader's jobs, `feed/`), the index reads the timeline
/// owns, and the body read the runtime decides (`Request::Body`). No pane is excepted: the
/// export from the server runs as `feed::range_export`, the History pane keeps its dialog.
const PANE_FORBIDDEN: &[&str] = &[
    "Summarizer",
    "PageWalk",
    "IndexRead::Range",
    "IndexRead::Holes",
    "IndexRead::Body",
];

/// Where `code` (stripped of comments and literals) names one of `names`: `file:line name`.
fn named_in(rel: &str, code: &str, names: &[&str]) -> Vec<String> {
    let flat: String = code
        .chars()
        .filter(|c| !c.is_whitespace() || *c == '\n')
        .collect();
    let mut found = Vec::new();
    for (n, line) in flat.lines().enumerate() {
        for name in names {
            let mut from = 0;
            while let Some(at) = line[from..].find(name) {
                let start = from + at;
                let end = start + name.len();
                let word = |c: char| c.is_alphanumeric() || c == '_';
                let before = line[..start].chars().next_back().is_some_and(word);
                let after = line[end..].chars().next().is_some_and(word);
                if !before && !after {
                    found.push(format!("src/{rel}:{} names {name}", n + 1));
                }
                from = end;
            }
        }
    }
    found
}

#[test]
fn no_pane_walks_pages_or_reads_what_the_timeline_and_the_runtime_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut names = Vec::new();
    rust_files(&src, &src, &mut names);
    let mut found = Vec::new();
    let mut panes = 0;
    for rel in names.iter().filter(|r| r.starts_with("panes/")) {
        panes += 1;
        let source = std::fs::read_to_string(src.join(rel)).expect("a source file");
        found.extend(named_in(rel, &strip(&source), PANE_FORBIDDEN));
    }
    assert!(panes > 30, "found the panes ({panes} files)");
    assert!(
        found.is_empty(),
        "panes reach below the timeline and the runtime (send an intent to the timeline, or a \
         `Request::Body`):\n{}",
        found.join("\n")
    );
    // The app routes replies by their owner: no probing which state machine owns a reply.
    let app = std::fs::read_to_string(src.join("app/mod.rs")).expect("app/mod.rs");
    assert!(
        !strip(&app).contains("owns("),
        "App::handle routes replies by `Owner`, without `owns()`"
    );
}

#[test]
fn the_pane_rule_finds_a_name_in_code_and_not_in_comments() {
    let code = "// PageWalk in a comment\nlet s = \"Summarizer\";\nuse crate::model::page_walk::PageWalk;\nlet x = MyPageWalker;\nIndexRead :: Holes { since }";
    let found = named_in("panes/x.rs", &strip(code), PANE_FORBIDDEN);
    assert_eq!(
        found,
        vec![
            "src/panes/x.rs:3 names PageWalk".to_owned(),
            "src/panes/x.rs:5 names IndexRead::Holes".to_owned(),
        ]
    );
}
