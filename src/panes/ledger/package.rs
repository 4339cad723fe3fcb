//! Package section: `GET /v2/packages/{package-id}` saved to a file the user names, with its
//! size and `Canton-Package-Hash`. A file that exists is never replaced without a second ↵ on
//! the same name ([`crate::panes::new_file`]): the form comes back saying so. Package ids seen
//! in the loaded history (the package part of template ids) and in ledger answers are offered
//! as a list and for Tab completion.

use std::path::PathBuf;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::model::summary::cat;
use crate::msg::Command;
use crate::msg::{Fetched, Request, RequestId};
use crate::panes::new_file::{EXISTS_NOTE, NewFile};
use crate::panes::{Out, Shared};
use crate::ui::format::group_thousands;
use crate::ui::scroll::ScrollState;
use crate::ui::theme::Theme;

use super::SectionView;
use super::common::{FORM_HINTS, LIST_HINTS, kv_line, package_of, put, put_safe, render_notes};
use crate::ui::explain::{Note, Tone, explain_notes};
use crate::ui::form::{Field, Form, FormOutcome, form_key, form_paste};

/// A downloaded package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    pub package_id: String,
    pub size: usize,
    pub hash: Option<String>,
    pub content_type: Option<String>,
    pub path: String,
    /// The write of the file: its id, then its outcome (`None` while writing).
    pub write_id: RequestId,
    pub written: Option<Result<usize, String>>,
}

/// The Package section.
#[derive(Debug, Default)]
pub struct PackageSection {
    form: Option<Form>,
    /// The form as submitted: it comes back when the file exists.
    asked: Option<Form>,
    /// The path the user was told exists.
    file: NewFile,
    last_id: String,
    last_path: String,
    pending: Option<(RequestId, String, String)>,
    result: Option<Downloaded>,
    error: Option<Vec<Note>>,
    /// Package ids seen in ledger answers (trees, executed transactions).
    seen: Vec<String>,
    scroll: ScrollState,
}

/// Whether `s` looks like a package id (a hex hash), not a package-name reference.
fn is_package_id(s: &str) -> bool {
    s.len() >= 16 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl PackageSection {
    /// The last download.
    pub fn result(&self) -> Option<&Downloaded> {
        self.result.as_ref()
    }

    /// Remembers package ids of template ids from ledger answers.
    pub fn note_template_ids<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for t in ids {
            if let Some(p) = package_of(t)
                && is_package_id(p)
                && !self.seen.iter().any(|s| s == p)
            {
                self.seen.push(p.to_string());
            }
        }
        self.seen.sort();
    }

    /// Forgets the package ids seen in ledger answers (the ledger they came from was replaced).
    pub fn forget_seen(&mut self) {
        self.seen.clear();
    }

    /// Package ids known from the history and from ledger answers, sorted.
    pub fn known_ids(&self, sh: &Shared) -> Vec<String> {
        let mut v: Vec<String> = sh
            .history
            .symbols_of(cat::TEMPLATE)
            .into_iter()
            .filter_map(package_of)
            .filter(|p| is_package_id(p))
            .map(str::to_owned)
            .chain(self.seen.iter().cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    fn open_form(&mut self, id: Option<String>, sh: &Shared) {
        let id = id.unwrap_or_else(|| self.last_id.clone());
        let path = if self.last_path.is_empty() || id != self.last_id {
            if id.is_empty() {
                String::new()
            } else {
                format!("{}.dalf", id.chars().take(16).collect::<String>())
            }
        } else {
            self.last_path.clone()
        };
        let known = self.known_ids(sh);
        self.form = Some(Form::new(vec![
            Field::text("package id", &id, "package id (Tab completes)")
                .candidates(known.iter().map(String::as_str)),
            Field::text("save to", &path, "file path, e.g. splice-amulet.dalf"),
        ]));
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(form) = &mut self.form else { return };
        let Some([id, path]) = form.required([
            (0, "a package id is required"),
            (1, "name the file to save the package to"),
        ]) else {
            return;
        };
        self.asked = self.form.take();
        self.last_id.clone_from(&id);
        self.last_path.clone_from(&path);
        let rid = out.fetch(sh, Request::api(crate::api::ledger::package(&id)));
        self.pending = Some((rid, id, path));
    }

    /// A file write of the pane finished: the download, if it is that one. When the file
    /// existed the form comes back saying so (↵ again replaces it); returns whether it did.
    pub(super) fn on_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        let Some(d) = &mut self.result else {
            return false;
        };
        if d.write_id != id {
            return false;
        }
        d.written = Some(result.clone());
        if !self
            .file
            .refused(std::path::Path::new(&d.path), result, out)
        {
            return false;
        }
        if self.form.is_none()
            && let Some(mut form) = self.asked.take()
        {
            form.set_error(1, EXISTS_NOTE);
            self.form = Some(form);
        }
        true
    }
}

impl SectionView for PackageSection {
    fn wants_raw_keys(&self) -> bool {
        self.form.is_some()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        match form_key(&mut self.form, key) {
            Some(FormOutcome::Submitted) => self.submit(sh, out),
            Some(FormOutcome::Cancelled) => self.file.forget(),
            _ => {}
        }
    }

    fn on_paste(&mut self, text: &str) {
        form_paste(&mut self.form, text);
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        let n = self.known_ids(sh).len();
        self.scroll.set_len(n);
        match cmd {
            Command::Edit => {
                self.open_form(None, sh);
                true
            }
            Command::Select => {
                let id = self.known_ids(sh).get(self.scroll.cursor()).cloned();
                self.open_form(id, sh);
                true
            }
            Command::Copy => {
                if let Some(r) = &self.result {
                    out.copy("package id", r.package_id.clone());
                } else if let Some(id) = self.known_ids(sh).get(self.scroll.cursor()) {
                    out.copy("package id", id.clone());
                }
                true
            }
            _ => self.scroll.navigate(cmd),
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let (id, result) = (reply.id, &reply.result);
        let Some((pid, package_id, path)) = self.pending.clone() else {
            return;
        };
        if pid != id {
            return;
        }
        self.pending = None;
        match result
            .as_ref()
            .map(|r| r.answer::<crate::api::ledger::Package>())
        {
            Ok(Some(p)) => {
                self.error = None;
                self.result = Some(Downloaded {
                    package_id,
                    size: p.bytes.len(),
                    hash: p.package_hash.clone(),
                    content_type: p.content_type.clone(),
                    path: path.clone(),
                    write_id: RequestId::default(),
                    written: None,
                });
                let wid = out.next_id(sh);
                if let Some(d) = &mut self.result {
                    d.write_id = wid;
                }
                out.effects
                    .push(self.file.write(wid, PathBuf::from(path), p.bytes.clone()));
            }
            Ok(None) => {}
            Err(e) => {
                self.result = None;
                let mut notes = vec![Note::new(Tone::Err, format!("package {package_id}:"))];
                notes.extend(explain_notes(e, None));
                self.error = Some(notes);
                out.error(format!("package {package_id}: {e}"));
            }
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        let mut y = 0u16;
        let known = self.known_ids(sh);
        if let Some(form) = &self.form {
            y += form.render_section(area, buf, theme, "download") + 1;
        } else {
            let intro = [Note::new(
                Tone::Muted,
                "GET /v2/packages/{package-id}: i enters a package id and a file to save it to; \
                 Enter on a known id below starts with it.",
            )];
            y += render_notes(&intro, area, buf, theme) + 1;
        }
        let w = area.width;
        if let Some((_, id, _)) = &self.pending {
            put_safe(
                area,
                y,
                buf,
                &format!("downloading package {id}…"),
                theme.muted,
            );
            y += 2;
        } else if let Some(r) = &self.result {
            let hash = r
                .hash
                .as_deref()
                .unwrap_or("(no Canton-Package-Hash header)");
            let (verdict, vstyle) = match &r.hash {
                Some(h) if *h == r.package_id => ("matches the package id", theme.status_ok),
                Some(_) => ("differs from the package id", theme.status_warn),
                None => ("-", theme.muted),
            };
            let rows = [
                kv_line("package", &r.package_id, theme.id, 9, w, theme),
                kv_line(
                    "size",
                    &format!("{} bytes", group_thousands(r.size)),
                    theme.accent,
                    9,
                    w,
                    theme,
                ),
                kv_line("hash", hash, theme.id, 9, w, theme),
                kv_line("check", verdict, vstyle, 9, w, theme),
                kv_line(
                    "type",
                    r.content_type.as_deref().unwrap_or("-"),
                    Style::default(),
                    9,
                    w,
                    theme,
                ),
                match &r.written {
                    None => kv_line(
                        "file",
                        &format!("writing {}…", r.path),
                        theme.muted,
                        9,
                        w,
                        theme,
                    ),
                    Some(Ok(_)) => kv_line("saved to", &r.path, theme.accent, 9, w, theme),
                    Some(Err(e)) => kv_line(
                        "not saved",
                        &format!("{}: {e}", r.path),
                        theme.status_err,
                        9,
                        w,
                        theme,
                    ),
                },
            ];
            for l in &rows {
                put(area, y, buf, l);
                y += 1;
            }
            y += 1;
        } else if let Some(err) = &self.error {
            let rest = Rect::new(
                area.x,
                area.y + y.min(area.height),
                w,
                area.height - y.min(area.height),
            );
            y += render_notes(err, rest, buf, theme) + 1;
        }
        if self.form.is_some() || y >= area.height {
            return;
        }
        let title = if known.is_empty() {
            "No package ids seen yet (they come from template ids in the history and in ledger answers)."
                .to_string()
        } else {
            format!("Package ids seen ({}):", known.len())
        };
        put_safe(area, y, buf, &title, theme.table_header);
        y += 1;
        let rows = usize::from(area.height.saturating_sub(y));
        let mut scroll = self.scroll;
        scroll.set_len(known.len());
        for (row, i) in scroll.visible_range(rows).enumerate() {
            let yy = y + row as u16;
            put_safe(area, yy, buf, &known[i], theme.id);
            if i == scroll.cursor() && yy < area.height {
                buf.set_style(
                    Rect::new(area.x, area.y + yy, w, 1),
                    theme.selection_style(focused),
                );
            }
        }
    }

    /// The last download (package id, hash, file) and the package id under the cursor.
    fn fields(&self, sh: &Shared) -> Vec<crate::ui::fields::Field> {
        use crate::ui::fields::Field;
        let mut v = Vec::new();
        if let Some(r) = &self.result {
            v.push(Field::new("package", r.package_id.as_str()));
            v.push(Field::new("size", format!("{} bytes", r.size)));
            v.push(Field::new(
                "hash",
                r.hash
                    .as_deref()
                    .unwrap_or("(no Canton-Package-Hash header)"),
            ));
            if let Some(t) = &r.content_type {
                v.push(Field::new("type", t.as_str()));
            }
            v.push(match &r.written {
                Some(Err(e)) => Field::new("not saved", format!("{}: {e}", r.path)),
                _ => Field::new("file", r.path.as_str()),
            });
        }
        let known = self.known_ids(sh);
        let mut scroll = self.scroll;
        scroll.set_len(known.len());
        if let Some(id) = known.get(scroll.cursor()) {
            v.push(Field::new("package id seen", id.as_str()));
        }
        v
    }

    fn hints(&self) -> Vec<Command> {
        if self.form.is_some() {
            FORM_HINTS.to_vec()
        } else {
            LIST_HINTS.to_vec()
        }
    }
}
