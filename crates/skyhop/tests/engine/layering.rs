//! The engine's architecture, checked: dependencies point down and no file
//! of `src/` is part of an import circle.
//!
//! Read from the source text (no compiler help), with these rules:
//! - A file depends on the file that *defines* each item it uses: through a
//!   `use` whose name the file's code then mentions, or through an inline
//!   path (`crate::a::b::C`, `super::x::Y`). Re-exports (`pub use`) are
//!   followed to the defining file, and a re-export that the file's own code
//!   does not use is an alias, not a dependency (so a `mod.rs` facade
//!   depends on nothing it only re-exports). `mod` declarations are not
//!   dependencies.
//! - Test code is left out: `#[cfg(test)] mod tests { ... }` blocks and the
//!   files of out-of-line test modules.
//! - Top-level modules are ranked ([`RANKS`]); a module may use only modules
//!   of a lower rank: the seams (`channel`, `tcp`, `net`, `app`, `pep`,
//!   `observe`) never import the scenario, the world or its drivers.
//!
//! The same check for the Python package is `tests/test_layering.py`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules by rank: a module may use only strictly lower ranks.
const RANKS: &[(&str, u32)] = &[
    ("engine", 0),
    ("csum", 0),
    ("error", 0),
    ("files", 0),
    ("suggest", 0),
    ("units", 1),
    ("geo", 1),
    ("mobility", 2),
    ("channel", 2),
    ("tcp", 2),
    ("net", 3),
    ("app", 3),
    ("pep", 3),
    ("quic", 3),
    ("observe", 4),
    ("result", 5),
    ("scenario", 6),
    ("sim", 7),
    ("export", 8),
    ("live", 9),
];

/// One source file: its module path and what the scan found in it.
#[derive(Debug, Default)]
struct FileInfo {
    path: PathBuf,
    module: Vec<String>,
    /// Child modules declared (`mod x;` / `pub mod x;`).
    children: BTreeSet<String>,
    /// Re-exports: exported name → full path of the target (segments).
    reexports: BTreeMap<String, Vec<String>>,
    /// Glob re-exports (`pub use x::*;`): target module paths.
    globs: Vec<Vec<String>>,
    /// Every `use` (name as imported → full path; `pub` ones too).
    uses: Vec<(String, Vec<String>)>,
    /// Paths written inline in code (`crate::...`, `super::...`).
    inline: Vec<Vec<String>>,
    /// The code, comments, strings, uses and test blocks removed.
    body: String,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Remove comments, string and char literals (keeping line structure irrelevant).
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            // Raw string r"..." / r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c as char);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == b'"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&b'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\''
            && b.get(i + 2) == Some(&b'\'')
            && b.get(i + 1).is_some_and(|&x| x != b'\\')
        {
            out.push_str("' '");
            i += 3;
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') {
            // '\n', '\'', '\u{..}'
            let mut j = i + 2;
            while j < b.len() && b[j] != b'\'' {
                j += 1;
            }
            out.push_str("' '");
            i = j + 1;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// Remove `#[cfg(test)] mod NAME { ... }` blocks.
fn drop_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
        let semi = trimmed.find(';');
        let brace = trimmed
            .find('{')
            .filter(|&b| is_mod && semi.is_none_or(|s| s > b));
        if let Some(brace) = brace {
            out.push_str(&rest[..at]);
            let start = rest.len() - trimmed.len() + brace;
            let bytes = rest.as_bytes();
            let mut depth = 0;
            let mut j = start;
            while j < bytes.len() {
                match bytes[j] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            j += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            rest = &rest[j..];
        } else {
            out.push_str(&rest[..at + "#[cfg(test)]".len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Expand a use tree (`a::b::{c, d::{e as f, self}}`) into (name, path) pairs.
fn expand_use(tree: &str, prefix: &[String], out: &mut Vec<(String, Vec<String>)>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    // Split at the first top-level `::{`.
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut base = prefix.to_vec();
        base.extend(
            head.split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
        let mut depth = 0;
        let mut start = 0;
        let ib = inner.as_bytes();
        for (k, &ch) in ib.iter().enumerate() {
            match ch {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                b',' if depth == 0 => {
                    expand_use(&inner[start..k], &base, out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand_use(&inner[start..], &base, out);
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim())),
        None => (tree, None),
    };
    let mut full = prefix.to_vec();
    full.extend(
        path.split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from),
    );
    if full.last().map(String::as_str) == Some("self") {
        full.pop();
    }
    let name = alias
        .map(String::from)
        .unwrap_or_else(|| full.last().cloned().unwrap_or_default());
    out.push((name, full));
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Scan one file.
fn scan(path: &Path, module: Vec<String>) -> FileInfo {
    let text = std::fs::read_to_string(path).unwrap();
    let code = drop_test_modules(&strip(&text));
    let mut info = FileInfo {
        path: path.to_path_buf(),
        module,
        ..Default::default()
    };
    let mut body = String::with_capacity(code.len());
    // Statements: split the code into items at `;` and braces is too much;
    // find `use` statements by keyword and cut them out of the body.
    let mut i = 0;
    let bytes = code.as_bytes();
    while i < code.len() {
        let prev_ok = i == 0 || !is_ident(bytes[i - 1] as char);
        let word_at = |w: &str| code[i..].starts_with(w) && prev_ok;
        let (is_use, public) = if word_at("use ") {
            (true, false)
        } else if word_at("pub use ") || word_at("pub(crate) use ") || word_at("pub(super) use ") {
            (true, true)
        } else {
            (false, false)
        };
        if is_use {
            let end = i + code[i..].find(';').unwrap();
            let stmt = &code[i..end];
            let tree = &stmt[stmt.find("use ").unwrap() + 4..];
            let mut pairs = Vec::new();
            expand_use(tree, &[], &mut pairs);
            for (name, p) in pairs {
                let full = absolute(&info.module, &p, &info.children);
                let Some(full) = full else { continue };
                if public {
                    if name == "*" {
                        let mut m = full.clone();
                        m.pop();
                        info.globs.push(m);
                    } else {
                        info.reexports.insert(name.clone(), full.clone());
                    }
                }
                info.uses.push((name, full));
            }
            i = end + 1;
            continue;
        }
        if word_at("mod ") || word_at("pub mod ") || word_at("pub(crate) mod ") {
            let kw = code[i..].find("mod ").unwrap() + 4;
            let rest = &code[i + kw..];
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            let after = rest[name.len()..].trim_start();
            if after.starts_with(';') {
                info.children.insert(name);
            }
        }
        body.push(bytes[i] as char);
        i += 1;
    }
    // Child modules declared after a `use` that names them: re-resolve.
    let children = info.children.clone();
    let module = info.module.clone();
    let fix = |p: &mut Vec<String>| {
        if let Some(first) = p.first() {
            if children.contains(first) && !["crate", "super", "self"].contains(&first.as_str()) {
                let mut m = module.clone();
                m.extend(p.iter().cloned());
                *p = m;
            }
        }
    };
    for (_, p) in info.uses.iter_mut() {
        fix(p);
    }
    for p in info.reexports.values_mut() {
        fix(p);
    }
    // Inline paths.
    for start_kw in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = body[from..].find(start_kw) {
            let at = from + k;
            from = at + start_kw.len();
            if at > 0 {
                let pc = body.as_bytes()[at - 1] as char;
                if is_ident(pc) || pc == ':' {
                    continue;
                }
            }
            let seg: String = body[at..]
                .chars()
                .take_while(|&c| is_ident(c) || c == ':')
                .collect();
            let parts: Vec<String> = seg
                .split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            if let Some(full) = absolute(&info.module, &parts, &info.children) {
                info.inline.push(full);
            }
        }
    }
    info.body = body;
    info
}

/// A use path made absolute (`crate`-rooted, without the `crate` segment);
/// `None` for an external crate or the standard library.
fn absolute(module: &[String], p: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let first = p.first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" | "$crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut m = module.to_vec();
            let mut k = 0;
            while p.get(k).map(String::as_str) == Some("super") {
                m.pop();
                k += 1;
            }
            m.extend(p[k..].iter().cloned());
            return Some(m);
        }
        name if children.contains(name) => {
            let mut m = module.to_vec();
            m.extend(p.iter().cloned());
            return Some(m);
        }
        _ => return None,
    };
    base.extend(p[1..].iter().cloned());
    Some(base)
}

struct Crate {
    files: Vec<FileInfo>,
    by_module: BTreeMap<Vec<String>, usize>,
}

impl Crate {
    fn load() -> Crate {
        let mut files = Vec::new();
        let mut stack = vec![(src_dir().join("lib.rs"), Vec::<String>::new())];
        while let Some((path, module)) = stack.pop() {
            let info = scan(&path, module.clone());
            let dir =
                if path.file_name().unwrap() == "lib.rs" || path.file_name().unwrap() == "mod.rs" {
                    path.parent().unwrap().to_path_buf()
                } else {
                    path.with_extension("")
                };
            for child in &info.children {
                let mut m = module.clone();
                m.push(child.clone());
                let a = dir.join(format!("{child}.rs"));
                let b = dir.join(child).join("mod.rs");
                let p = if a.exists() { a } else { b };
                // Out-of-line test modules are test code.
                if child == "tests" || !p.exists() {
                    continue;
                }
                stack.push((p, m));
            }
            files.push(info);
        }
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        Crate { files, by_module }
    }

    /// The file defining what `path` names (the deepest module file reached,
    /// re-exports followed).
    fn resolve(&self, path: &[String], depth: u32) -> Option<usize> {
        if depth > 16 {
            return None;
        }
        let mut cur = *self.by_module.get(&Vec::new())?;
        let mut k = 0;
        while k < path.len() {
            let seg = &path[k];
            let f = &self.files[cur];
            if f.children.contains(seg) {
                let mut m = f.module.clone();
                m.push(seg.clone());
                match self.by_module.get(&m) {
                    Some(&c) => {
                        cur = c;
                        k += 1;
                        continue;
                    }
                    None => return None, // a test module
                }
            }
            if let Some(target) = f.reexports.get(seg) {
                let mut t = target.clone();
                t.extend(path[k + 1..].iter().cloned());
                return self.resolve(&t, depth + 1).or(Some(cur));
            }
            for g in &f.globs {
                let mut t = g.clone();
                t.extend(path[k..].iter().cloned());
                if let Some(r) = self.resolve(&t, depth + 1) {
                    if r != *self.by_module.get(g).unwrap_or(&usize::MAX) || self.defines(r, seg) {
                        return Some(r);
                    }
                }
            }
            return Some(cur);
        }
        Some(cur)
    }

    fn defines(&self, file: usize, name: &str) -> bool {
        let body = &self.files[file].body;
        [
            "struct ",
            "enum ",
            "trait ",
            "fn ",
            "type ",
            "const ",
            "static ",
            "macro_rules! ",
        ]
        .iter()
        .any(|kw| body.contains(&format!("{kw}{name}")))
    }

    fn name(&self, i: usize) -> String {
        let p = &self.files[i].path;
        p.strip_prefix(src_dir()).unwrap().display().to_string()
    }

    /// File-level dependency edges.
    fn edges(&self) -> BTreeMap<usize, BTreeSet<usize>> {
        let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for (i, f) in self.files.iter().enumerate() {
            let e = edges.entry(i).or_default();
            for (name, path) in &f.uses {
                let used = name == "*" || mentions(&f.body, name);
                if !used {
                    continue;
                }
                if let Some(t) = self.resolve(path, 0) {
                    if t != i {
                        e.insert(t);
                    }
                }
            }
            for path in &f.inline {
                if let Some(t) = self.resolve(path, 0) {
                    if t != i {
                        e.insert(t);
                    }
                }
            }
        }
        edges
    }
}

fn mentions(body: &str, name: &str) -> bool {
    let b = body.as_bytes();
    let mut from = 0;
    while let Some(k) = body[from..].find(name) {
        let at = from + k;
        let end = at + name.len();
        let before_ok = at == 0 || !is_ident(b[at - 1] as char);
        let after_ok = end >= b.len() || !is_ident(b[end] as char);
        if before_ok && after_ok {
            return true;
        }
        from = end;
    }
    false
}

fn top(c: &Crate, i: usize) -> String {
    c.files[i]
        .module
        .first()
        .cloned()
        .unwrap_or_else(|| "lib".into())
}

#[test]
fn no_file_is_part_of_an_import_circle() {
    let c = Crate::load();
    let edges = c.edges();
    // Tarjan's strongly connected components.
    struct T<'a> {
        edges: &'a BTreeMap<usize, BTreeSet<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        sccs: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in t.edges.get(&v).into_iter().flatten() {
            if t.index[w].is_none() {
                visit(t, w);
                t.low[v] = t.low[v].min(t.low[w]);
            } else if t.on[w] {
                t.low[v] = t.low[v].min(t.index[w].unwrap());
            }
        }
        if t.low[v] == t.index[v].unwrap() {
            let mut scc = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                t.sccs.push(scc);
            }
        }
    }
    let n = c.files.len();
    let mut t = T {
        edges: &edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        sccs: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    let circles: Vec<String> = t
        .sccs
        .iter()
        .map(|scc| {
            let mut names: Vec<String> = scc.iter().map(|&i| c.name(i)).collect();
            names.sort();
            let detail: Vec<String> = scc
                .iter()
                .flat_map(|&a| {
                    edges[&a]
                        .iter()
                        .filter(|b| scc.contains(b))
                        .map(move |&b| (a, b))
                })
                .map(|(a, b)| format!("{} -> {}", c.name(a), c.name(b)))
                .collect();
            format!("{{{}}}: {}", names.join(", "), detail.join("; "))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn dependencies_point_down() {
    let c = Crate::load();
    let rank: BTreeMap<&str, u32> = RANKS.iter().copied().collect();
    let mut bad = Vec::new();
    for (a, targets) in c.edges() {
        let ta = top(&c, a);
        if ta == "lib" {
            continue;
        }
        let ra = *rank
            .get(ta.as_str())
            .unwrap_or_else(|| panic!("top-level module {ta} has no rank in RANKS"));
        for b in targets {
            let tb = top(&c, b);
            if tb == ta || tb == "lib" {
                continue;
            }
            let rb = rank[tb.as_str()];
            if rb >= ra {
                bad.push(format!(
                    "{} -> {} ({ta} may not use {tb})",
                    c.name(a),
                    c.name(b)
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "upward or sideways imports:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_top_level_module_is_ranked_and_the_scan_sees_the_crate() {
    let c = Crate::load();
    let rank: BTreeMap<&str, u32> = RANKS.iter().copied().collect();
    let tops: BTreeSet<String> = (0..c.files.len()).map(|i| top(&c, i)).collect();
    for t in &tops {
        assert!(
            t == "lib" || rank.contains_key(t.as_str()),
            "{t} is not ranked"
        );
    }
    // The scan must find real dependencies, or the tests above prove nothing.
    let edges = c.edges();
    let find = |p: &str| (0..c.files.len()).find(|&i| c.name(i) == p).unwrap();
    let fifo = find("net/fifo.rs");
    assert!(
        edges[&fifo].contains(&find("net/layer.rs")),
        "net/fifo.rs uses the LinkLayer trait"
    );
    assert!(edges[&fifo].contains(&find("engine/time.rs")));
    assert!(c.files.len() > 60, "found only {} files", c.files.len());
}

#[test]
fn no_source_file_above_700_lines_outside_tests() {
    let c = Crate::load();
    let mut long = Vec::new();
    for f in &c.files {
        let text = std::fs::read_to_string(&f.path).unwrap();
        // Lines before an in-file test module.
        let code = match text.find("#[cfg(test)]\nmod tests") {
            Some(k) => &text[..k],
            None => &text[..],
        };
        let n = code.lines().count();
        if n > 700 {
            long.push(format!(
                "{} ({n} lines)",
                f.path.strip_prefix(src_dir()).unwrap().display()
            ));
        }
    }
    assert!(
        long.is_empty(),
        "files above 700 lines: {}",
        long.join(", ")
    );
}
