//! UI foundation benchmarks: drawing one 200x60 window of a 10,000-node tree (fully expanded,
//! cursor in the middle), of a JSON viewer over a 10,000-element array, and the sanitizer's
//! per-cell cost on clean and hostile strings.

use std::hint::black_box;

use cantonscope::ui::json::JsonView;
use cantonscope::ui::safe::{safe_line, sanitize};
use cantonscope::ui::scroll::Scrolled;
use cantonscope::ui::theme::Theme;
use cantonscope::ui::tree::{NodeId, TreeSource, TreeState};
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// 100 roots × 99 children, labels like an event tree's.
struct Events {
    roots: Vec<NodeId>,
    children: Vec<Vec<NodeId>>,
    parents: Vec<Option<NodeId>>,
    labels: Vec<String>,
}

impl Events {
    fn new() -> Self {
        let mut children = Vec::new();
        let mut parents = Vec::new();
        let mut labels = Vec::new();
        let mut roots = Vec::new();
        for r in 0..100 {
            let root = children.len();
            roots.push(root);
            children.push(Vec::new());
            parents.push(None);
            labels.push(format!("AmuletRules_Transfer #1220{r:04x}:0"));
            for c in 0..99 {
                let id = children.len();
                children[root].push(id);
                children.push(Vec::new());
                parents.push(Some(root));
                labels.push(format!("Splice.Amulet:Amulet #1220{r:04x}:{c}"));
            }
        }
        Events {
            roots,
            children,
            parents,
            labels,
        }
    }
}

impl TreeSource for Events {
    fn roots(&self) -> &[NodeId] {
        &self.roots
    }
    fn children(&self, id: NodeId) -> &[NodeId] {
        &self.children[id]
    }
    fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parents[id]
    }
    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_> {
        let style = if self.children[id].is_empty() {
            theme.created
        } else {
            theme.exercised
        };
        Line::from(vec![
            Span::styled(
                if self.children[id].is_empty() {
                    "created "
                } else {
                    "exercised "
                },
                style,
            ),
            Span::raw(self.labels[id].as_str()),
        ])
    }
}

fn bench_tree(c: &mut Criterion) {
    let src = Events::new();
    let theme = Theme::default();
    let mut state = TreeState::new(&src);
    state.expand_all(&src);
    state.set_viewport(60);
    state.down(5_000);
    let area = Rect::new(0, 0, 200, 60);
    let mut buf = Buffer::empty(area);
    c.bench_function("tree_10k_render_200x60", |b| {
        b.iter(|| {
            buf.reset();
            state.render(&src, area, &mut buf, &theme, true);
            black_box(&buf);
        });
    });
    c.bench_function("tree_10k_expand_all", |b| {
        b.iter(|| {
            let mut s = TreeState::new(&src);
            s.expand_all(&src);
            black_box(s.visible_len())
        });
    });
}

fn bench_json(c: &mut Criterion) {
    let value = serde_json::Value::Array(
        (0..10_000)
            .map(|i| serde_json::json!({"owner": format!("party-{i}::1220ab"), "amount": i}))
            .collect(),
    );
    let theme = Theme::default();
    let mut view = JsonView::new(&value);
    view.expand_all();
    view.set_viewport(60);
    view.down(150);
    let area = Rect::new(0, 0, 200, 60);
    let mut buf = Buffer::empty(area);
    c.bench_function("json_10k_render_200x60", |b| {
        b.iter(|| {
            buf.reset();
            view.render(area, &mut buf, &theme, true);
            black_box(&buf);
        });
    });
    c.bench_function("json_10k_build", |b| {
        b.iter(|| black_box(JsonView::new(&value).visible_len()));
    });
}

fn bench_sanitize(c: &mut Criterion) {
    let clean = "AmuletRules_Transfer::1220e2c0f9a1b6c4d8e7f60a1b2c3d4e5f";
    let hostile = "\u{1b}]8;;http://evil\u{1b}\\alice\u{202e}::1220\u{1b}[2J\u{9b}31m";
    let long = "x".repeat(1_000_000);
    c.bench_function("sanitize_clean_48b", |b| {
        b.iter(|| black_box(sanitize(black_box(clean))));
    });
    c.bench_function("safe_line_hostile_40", |b| {
        b.iter(|| black_box(safe_line(black_box(hostile), 40)));
    });
    c.bench_function("safe_line_1mb_clean_40", |b| {
        b.iter(|| black_box(safe_line(black_box(&long), 40)));
    });
}

criterion_group!(benches, bench_tree, bench_json, bench_sanitize);
criterion_main!(benches);
