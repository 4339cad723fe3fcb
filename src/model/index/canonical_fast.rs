//! The canonical text ([`super::canonical`]'s) of JSON whose strings have no escapes and whose
//! numbers are integers as serde_json writes them back — what a scan serves nearly always —
//! read without serde: one pass over the bytes into a flat tree of byte ranges (no `Cow`, no
//! `Number`, no `Vec` per object: every container's members in one shared list, reused item
//! after item), each object's members sorted by their key's bytes, then written. Such a
//! string's bytes are what serde_json writes for it, and such a number's digits too, so the
//! text is the same byte for byte. Anything else (an escape, a float, `-0`, an integer beyond
//! 64 bits, a nesting deeper than serde_json reads, a text that is not JSON) is left to the
//! serde path, which also gives the errors.

use std::cell::RefCell;

use crate::model::consensus::LocalFields;
use crate::model::json_tokens;

/// serde_json's own nesting limit: deeper, its error is the answer.
const MAX_DEPTH: usize = 128;

/// A member of an object (`key` its text between the quotes) or an item of an array (no key).
#[derive(Clone, Copy)]
struct Member {
    key: (u32, u32),
    /// Its node; [`REMOVED`] once a local field.
    node: u32,
}

const REMOVED: u32 = u32::MAX;

#[derive(Clone, Copy)]
enum Node {
    /// A literal, an integer or a string (with its quotes): written as its bytes.
    Raw(u32, u32),
    /// Items (a range of the members list).
    Array(u32, u32),
    /// Members sorted by key (stable: of duplicate keys the last read comes last).
    Object(u32, u32),
}

/// The tree of one text, its lists kept between texts on the thread.
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    members: Vec<Member>,
    /// The members of the containers still open.
    stack: Vec<Member>,
}

thread_local! {
    static TREE: RefCell<Tree> = RefCell::default();
}

/// The canonical text of `text` without the `local` fields into `out` (cleared first): `false`
/// when the text is not of the form read here (the serde path then makes it).
pub(super) fn canonical_into(text: &str, local: LocalFields, out: &mut Vec<u8>) -> bool {
    let bytes = text.as_bytes();
    if u32::try_from(bytes.len()).is_err() {
        return false;
    }
    TREE.with(|tree| {
        let Ok(mut tree) = tree.try_borrow_mut() else {
            return false;
        };
        tree.nodes.clear();
        tree.members.clear();
        tree.stack.clear();
        // A control character can only be whitespace between tokens or (not JSON) inside a
        // string: with none in the text, the strings need not be looked at for them. A pass
        // without an early exit, which the compiler vectorises.
        let controls = bytes.iter().fold(0u8, |any, b| any | u8::from(*b < 0x20)) != 0;
        let mut read = Read {
            bytes,
            tree: &mut tree,
            controls,
        };
        let Some((root, end)) = read.value(skip_ws(bytes, 0), 0) else {
            return false;
        };
        if skip_ws(bytes, end) != bytes.len() {
            return false;
        }
        for path in local.0 {
            strip(bytes, &mut tree, root, path);
        }
        out.clear();
        write(bytes, &tree, root, out);
        true
    })
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

struct Read<'a, 't> {
    bytes: &'a [u8],
    tree: &'t mut Tree,
    /// Whether the text has a byte below 0x20 anywhere (then each string is checked).
    controls: bool,
}

impl Read<'_, '_> {
    /// The value at `at` (no whitespace before it): its node and where it ends.
    fn value(&mut self, at: usize, depth: usize) -> Option<(u32, usize)> {
        let end = match *self.bytes.get(at)? {
            b'{' => return self.container(at, depth, true),
            b'[' => return self.container(at, depth, false),
            b'"' => self.string(at)?,
            b't' => self.literal(at, b"true")?,
            b'f' => self.literal(at, b"false")?,
            b'n' => self.literal(at, b"null")?,
            b'-' | b'0'..=b'9' => self.integer(at)?,
            _ => return None,
        };
        Some((self.node(Node::Raw(at as u32, end as u32)), end))
    }

    fn node(&mut self, node: Node) -> u32 {
        self.tree.nodes.push(node);
        (self.tree.nodes.len() - 1) as u32
    }

    fn literal(&self, at: usize, word: &[u8]) -> Option<usize> {
        json_tokens::literal_end(self.bytes, at, word)
    }

    /// A string without escapes or control characters: where it ends (past its quote).
    fn string(&self, at: usize) -> Option<usize> {
        json_tokens::plain_string_end(self.bytes, at, self.controls)
    }

    /// An integer as serde_json writes it back; a fraction or an exponent is not read here.
    fn integer(&self, at: usize) -> Option<usize> {
        json_tokens::integer_end(self.bytes, at)
    }

    /// An object (`object`) or an array at `at`.
    fn container(&mut self, at: usize, depth: usize, object: bool) -> Option<(u32, usize)> {
        if depth >= MAX_DEPTH {
            return None;
        }
        let close = if object { b'}' } else { b']' };
        let mark = self.tree.stack.len();
        let mut i = skip_ws(self.bytes, at + 1);
        if self.bytes.get(i) != Some(&close) {
            loop {
                let mut key = (0, 0);
                if object {
                    if self.bytes.get(i) != Some(&b'"') {
                        return None;
                    }
                    let key_end = self.string(i)?;
                    key = ((i + 1) as u32, (key_end - 1) as u32);
                    i = skip_ws(self.bytes, key_end);
                    if self.bytes.get(i) != Some(&b':') {
                        return None;
                    }
                    i = skip_ws(self.bytes, i + 1);
                }
                let (node, end) = self.value(i, depth + 1)?;
                self.tree.stack.push(Member { key, node });
                i = skip_ws(self.bytes, end);
                match self.bytes.get(i)? {
                    b',' => i = skip_ws(self.bytes, i + 1),
                    c if *c == close => break,
                    _ => return None,
                }
            }
        }
        let start = self.tree.members.len();
        let Tree { members, stack, .. } = &mut *self.tree;
        members.extend(stack.drain(mark..));
        let end = members.len();
        if object {
            let bytes = self.bytes;
            members[start..].sort_by(|a, b| key_of(bytes, a).cmp(key_of(bytes, b)));
        }
        let (start, end) = (start as u32, end as u32);
        let node = self.node(if object {
            Node::Object(start, end)
        } else {
            Node::Array(start, end)
        });
        Some((node, i + 1))
    }
}

fn key_of<'a>(bytes: &'a [u8], member: &Member) -> &'a [u8] {
    &bytes[member.key.0 as usize..member.key.1 as usize]
}

/// Whether member `k` of the sorted `members[start..end]` is the one kept of its key (the last
/// read of duplicates: the last of them in the stable sort).
fn kept(bytes: &[u8], members: &[Member], k: usize, end: usize) -> bool {
    k + 1 >= end || key_of(bytes, &members[k]) != key_of(bytes, &members[k + 1])
}

/// Removes `path` as `LocalFields::strip` removes it from a `Value` (duplicate keys read as
/// `Value` keeps them: the last).
fn strip(bytes: &[u8], tree: &mut Tree, node: u32, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    match tree.nodes[node as usize] {
        Node::Object(start, end) if rest.is_empty() => {
            for m in &mut tree.members[start as usize..end as usize] {
                if key_of(bytes, m) == first.as_bytes() {
                    m.node = REMOVED;
                }
            }
        }
        Node::Object(start, end) => {
            let (start, end) = (start as usize, end as usize);
            let found = (start..end).find(|k| {
                key_of(bytes, &tree.members[*k]) == first.as_bytes()
                    && kept(bytes, &tree.members, *k, end)
            });
            if let Some(k) = found {
                let inner = tree.members[k].node;
                if inner != REMOVED {
                    strip(bytes, tree, inner, rest);
                }
            }
        }
        Node::Array(start, end) if *first == "*" => {
            for k in start as usize..end as usize {
                let inner = tree.members[k].node;
                if inner != REMOVED {
                    strip(bytes, tree, inner, rest);
                }
            }
        }
        _ => {}
    }
}

fn write(bytes: &[u8], tree: &Tree, node: u32, out: &mut Vec<u8>) {
    match tree.nodes[node as usize] {
        Node::Raw(start, end) => out.extend_from_slice(&bytes[start as usize..end as usize]),
        Node::Array(start, end) => {
            out.push(b'[');
            for (i, m) in tree.members[start as usize..end as usize]
                .iter()
                .enumerate()
            {
                if i > 0 {
                    out.push(b',');
                }
                write(bytes, tree, m.node, out);
            }
            out.push(b']');
        }
        Node::Object(start, end) => {
            out.push(b'{');
            let mut first = true;
            for k in start as usize..end as usize {
                let m = tree.members[k];
                if m.node == REMOVED || !kept(bytes, &tree.members, k, end as usize) {
                    continue;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                out.push(b'"');
                out.extend_from_slice(key_of(bytes, &m));
                out.extend_from_slice(b"\":");
                write(bytes, tree, m.node, out);
            }
            out.push(b'}');
        }
    }
}
