//! The shape of the house, checked: arrows point down only (api → service →
//! games and store), and the parts of the service depend on each other without
//! a circle. Read from the sources' own paths, as text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// A file's text without its tests (they may reach anywhere) and comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable");
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The part of the service (its direct child module) a file belongs to.
fn part_of(service: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(service).expect("under service");
    let first = rel.components().next().expect("a component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_owned()
}

#[test]
fn the_parts_of_the_service_depend_on_each_other_without_a_circle() {
    let service = src().join("service");
    let mut files = Vec::new();
    rust_files(&service, &mut files);
    let parts: BTreeSet<String> = files.iter().map(|f| part_of(&service, f)).collect();
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let from = part_of(&service, f);
        if from == "mod" {
            continue;
        }
        let text = code(f);
        let nested = f.parent() != Some(service.as_path());
        let mut named: Vec<&str> = text
            .match_indices("crate::service::")
            .map(|(i, m)| &text[i + m.len()..])
            .collect();
        // `super::x` names a sibling part only from a file directly in service/.
        if !nested {
            named.extend(
                text.match_indices("super::")
                    .map(|(i, m)| &text[i + m.len()..]),
            );
        }
        for rest in named {
            let to: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // Errors and the transaction macro are everybody's ground floor.
            if parts.contains(&to) && to != from && to != "error" && to != "tx" {
                arrows.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    // Depth-first search for a way back to where it started.
    fn back_to(
        start: &str,
        at: &str,
        arrows: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in arrows.get(at).into_iter().flatten() {
            path.push(next.clone());
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) && back_to(start, next, arrows, path, seen) {
                return true;
            }
            path.pop();
        }
        false
    }
    for start in arrows.keys() {
        let mut path = vec![start.clone()];
        if back_to(start, start, &arrows, &mut path, &mut BTreeSet::new()) {
            panic!("the service's parts run in a circle: {}", path.join(" -> "));
        }
    }
    assert!(
        arrows.len() > 12,
        "the scan found the parts' imports: {arrows:?}"
    );
}

#[test]
fn arrows_point_down_only() {
    let rules: [(&str, &[&str]); 3] = [
        (
            "games",
            &[
                "crate::service",
                "crate::store",
                "crate::api",
                "actix",
                "sea_orm",
                "tokio",
                "jsonwebtoken",
                "Utc::now",
                "thread_rng",
            ],
        ),
        ("store", &["crate::service", "crate::api"]),
        ("service", &["crate::api"]),
    ];
    for (layer, forbidden) in rules {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        assert!(!files.is_empty(), "{layer} has files");
        // Test files may reach anywhere (a test of a game names the server).
        for f in files.iter().filter(|f| {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            !name.ends_with("tests.rs") && name != "test_support.rs"
        }) {
            let text = code(f);
            for word in forbidden {
                assert!(
                    !text.contains(word),
                    "{} names {word}: {layer} may not",
                    f.display()
                );
            }
        }
    }
}
