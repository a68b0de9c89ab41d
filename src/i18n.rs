//! The message catalogues (Project Fluent) and the choice of a language.
//!
//! One catalogue set per language lives in `web/locales/<lang>/*.ftl`: the
//! browser client formats its pages from the same files (served from the
//! binary's embedded copy under `/app/locales/`), and the server formats
//! problem titles and details from them. English is the reference: every other
//! language has the same messages with the same variables (a test checks it),
//! and a message missing in a language falls back to English.

#[cfg(test)]
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use fluent_syntax::ast;
use serde::{Deserialize, Serialize};
use unic_langid::LanguageIdentifier;

/// A language the server and the client speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    En,
    Cs,
    Et,
}

impl Locale {
    /// Every language, English (the fallback) first.
    pub const ALL: [Locale; 3] = [Locale::En, Locale::Cs, Locale::Et];

    /// The BCP 47 tag: `en`, `cs`, `et`.
    pub fn tag(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Cs => "cs",
            Locale::Et => "et",
        }
    }

    /// A language from a tag: its primary subtag decides (`cs-CZ` is `cs`),
    /// in any case.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        Locale::ALL.into_iter().find(|l| l.tag() == primary)
    }

    fn index(self) -> usize {
        match self {
            Locale::En => 0,
            Locale::Cs => 1,
            Locale::Et => 2,
        }
    }
}

/// The language to answer in from an `Accept-Language` header (RFC 9110
/// §12.5.4): the supported language with the highest weight, the earlier of
/// two with equal weights; English when none is supported or the header is
/// missing or unreadable. A range of weight 0 is refused, `*` adds nothing.
pub fn negotiate(accept_language: Option<&str>) -> Locale {
    let Some(header) = accept_language else {
        return Locale::En;
    };
    let mut best: Option<(u16, Locale)> = None;
    for range in header.split(',').take(32) {
        let mut parts = range.split(';');
        let tag = parts.next().unwrap_or("").trim();
        let weight = parts
            .find_map(|p| {
                let (k, v) = p.split_once('=')?;
                (k.trim().eq_ignore_ascii_case("q")).then(|| quality(v.trim()))
            })
            .unwrap_or(Some(1000));
        let (Some(weight), Some(locale)) = (weight, Locale::from_tag(tag)) else {
            continue;
        };
        if weight > 0 && best.is_none_or(|(w, _)| weight > w) {
            best = Some((weight, locale));
        }
    }
    best.map_or(Locale::En, |(_, l)| l)
}

/// A q-value in thousandths (`0.8` is 800); None when it is not one.
fn quality(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u16 = format!("{frac:0<3}").parse().ok()?;
    match int {
        "0" => Some(frac),
        "1" if frac == 0 => Some(1000),
        _ => None,
    }
}

/// The catalogue files of one language, in the order they are loaded.
pub const FILES: [&str; 4] = ["app.ftl", "games.ftl", "problems.ftl", "mail.ftl"];

macro_rules! catalogue {
    ($lang:literal) => {
        [
            (
                "app.ftl",
                include_str!(concat!("../web/locales/", $lang, "/app.ftl")),
            ),
            (
                "games.ftl",
                include_str!(concat!("../web/locales/", $lang, "/games.ftl")),
            ),
            (
                "problems.ftl",
                include_str!(concat!("../web/locales/", $lang, "/problems.ftl")),
            ),
            (
                "mail.ftl",
                include_str!(concat!("../web/locales/", $lang, "/mail.ftl")),
            ),
        ]
    };
}

/// The embedded catalogue files: `(language, file name, text)`.
pub fn sources() -> impl Iterator<Item = (Locale, &'static str, &'static str)> {
    static SOURCES: [[(&str, &str); 4]; 3] = [catalogue!("en"), catalogue!("cs"), catalogue!("et")];
    Locale::ALL
        .into_iter()
        .flat_map(|l| SOURCES[l.index()].iter().map(move |(f, t)| (l, *f, *t)))
}

struct Catalogue {
    bundle: FluentBundle<FluentResource>,
}

static CATALOGUES: LazyLock<Vec<Catalogue>> = LazyLock::new(|| {
    Locale::ALL
        .into_iter()
        .map(|locale| {
            let id: LanguageIdentifier = locale.tag().parse().unwrap_or_default();
            let mut bundle = FluentBundle::new_concurrent(vec![id]);
            // Plain text: problem details are JSON strings, not HTML, and the
            // isolation marks would only get in a reader's way.
            bundle.set_use_isolating(false);
            for (l, file, text) in sources() {
                if l != locale {
                    continue;
                }
                let resource = FluentResource::try_new(text.to_owned()).unwrap_or_else(|(r, e)| {
                    tracing::error!(locale = l.tag(), file, errors = ?e, "catalogue has syntax errors");
                    r
                });
                if let Err(e) = bundle.add_resource(resource) {
                    tracing::error!(locale = l.tag(), file, errors = ?e, "catalogue has duplicate entries");
                }
            }
            Catalogue { bundle }
        })
        .collect()
});

/// The variables each English message uses (its value and attributes, and the
/// messages it refers to), by message id: what a caller must give to format it.
#[cfg(test)]
static VARIABLES: LazyLock<BTreeMap<String, BTreeSet<String>>> = LazyLock::new(|| {
    let mut direct = BTreeMap::new();
    let mut refs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (l, _, text) in sources() {
        if l != Locale::En {
            continue;
        }
        for (id, vars, referenced) in message_variables(text) {
            direct.insert(id.clone(), vars);
            refs.insert(id, referenced);
        }
    }
    // Message references pass the caller's arguments on: follow them (a few
    // levels are plenty; a cycle is an error Fluent reports at format time).
    let mut all = direct.clone();
    for _ in 0..4 {
        for (id, referenced) in &refs {
            let extra: BTreeSet<String> = referenced
                .iter()
                .filter_map(|r| all.get(r))
                .flatten()
                .cloned()
                .collect();
            if let Some(v) = all.get_mut(id) {
                v.extend(extra);
            }
        }
    }
    all
});

/// Every message of a catalogue text: its id, the variables it uses directly
/// and the messages it refers to. Attributes count as `id.attribute`.
pub fn message_variables(text: &str) -> Vec<(String, BTreeSet<String>, BTreeSet<String>)> {
    let resource = match fluent_syntax::parser::parse(text) {
        Ok(r) => r,
        Err((r, _)) => r,
    };
    let mut out = Vec::new();
    for entry in resource.body {
        if let ast::Entry::Message(m) = entry {
            let mut vars = BTreeSet::new();
            let mut refs = BTreeSet::new();
            if let Some(p) = &m.value {
                walk_pattern(p, &mut vars, &mut refs);
            }
            out.push((m.id.name.to_owned(), vars, refs));
            for a in &m.attributes {
                let mut vars = BTreeSet::new();
                let mut refs = BTreeSet::new();
                walk_pattern(&a.value, &mut vars, &mut refs);
                out.push((format!("{}.{}", m.id.name, a.id.name), vars, refs));
            }
        }
    }
    out
}

fn walk_pattern(p: &ast::Pattern<&str>, vars: &mut BTreeSet<String>, refs: &mut BTreeSet<String>) {
    for el in &p.elements {
        if let ast::PatternElement::Placeable { expression } = el {
            walk_expression(expression, vars, refs);
        }
    }
}

fn walk_expression(
    e: &ast::Expression<&str>,
    vars: &mut BTreeSet<String>,
    refs: &mut BTreeSet<String>,
) {
    match e {
        ast::Expression::Select { selector, variants } => {
            walk_inline(selector, vars, refs);
            for v in variants {
                walk_pattern(&v.value, vars, refs);
            }
        }
        ast::Expression::Inline(i) => walk_inline(i, vars, refs),
    }
}

fn walk_inline(
    i: &ast::InlineExpression<&str>,
    vars: &mut BTreeSet<String>,
    refs: &mut BTreeSet<String>,
) {
    match i {
        ast::InlineExpression::VariableReference { id } => {
            vars.insert(id.name.to_owned());
        }
        ast::InlineExpression::MessageReference { id, attribute } => {
            refs.insert(match attribute {
                Some(a) => format!("{}.{}", id.name, a.name),
                None => id.name.to_owned(),
            });
        }
        ast::InlineExpression::FunctionReference { arguments, .. } => {
            for a in &arguments.positional {
                walk_inline(a, vars, refs);
            }
            for a in &arguments.named {
                walk_inline(&a.value, vars, refs);
            }
        }
        ast::InlineExpression::Placeable { expression } => walk_expression(expression, vars, refs),
        // A term has a scope of its own: the caller's variables do not reach it.
        _ => {}
    }
}

/// Formats the message `id` (or `id.attribute`) in `locale`, in English when
/// the language lacks it. None when no catalogue has it or it cannot be
/// formatted whole (a variable it uses is not given).
pub fn format(locale: Locale, id: &str, args: &FluentArgs) -> Option<String> {
    [locale, Locale::En]
        .into_iter()
        .find_map(|l| format_in(l, id, args))
}

/// The message `id` in `locale` alone (no fallback), or None when that
/// catalogue lacks it or a variable it reaches for is not given.
pub fn format_exactly(locale: Locale, id: &str, args: &FluentArgs) -> Option<String> {
    format_in(locale, id, args)
}

fn format_in(locale: Locale, id: &str, args: &FluentArgs) -> Option<String> {
    let bundle = &CATALOGUES.get(locale.index())?.bundle;
    let (name, attribute) = match id.split_once('.') {
        Some((n, a)) => (n, Some(a)),
        None => (id, None),
    };
    let message = bundle.get_message(name)?;
    let pattern = match attribute {
        Some(a) => message.get_attribute(a)?.value(),
        None => message.value()?,
    };
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, Some(args), &mut errors);
    errors.is_empty().then(|| text.into_owned())
}

/// A JSON value as a Fluent argument: numbers stay numbers (they choose
/// plural forms), everything else is its text.
pub fn fluent_value(v: &serde_json::Value) -> FluentValue<'static> {
    match v {
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => FluentValue::from(i),
            None => FluentValue::from(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => FluentValue::from(s.clone()),
        other => FluentValue::from(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_weighted_supported_language_is_chosen() {
        assert_eq!(negotiate(None), Locale::En);
        assert_eq!(negotiate(Some("")), Locale::En);
        assert_eq!(negotiate(Some("cs")), Locale::Cs);
        assert_eq!(negotiate(Some("cs-CZ,cs;q=0.9,en;q=0.8")), Locale::Cs);
        assert_eq!(
            negotiate(Some("de-DE,de;q=0.9,et;q=0.5,en;q=0.4")),
            Locale::Et
        );
        assert_eq!(negotiate(Some("en;q=0.5, ET")), Locale::Et);
        assert_eq!(negotiate(Some("fr, *;q=0.1")), Locale::En);
        assert_eq!(negotiate(Some("cs;q=0, et;q=0.001")), Locale::Et);
        assert_eq!(negotiate(Some("cs;q=2, et;q=1.5")), Locale::En);
        assert_eq!(negotiate(Some(";;;,,=q;q=")), Locale::En);
        assert_eq!(negotiate(Some("et;q=0.7,cs;q=0.7")), Locale::Et);
    }

    /// The catalogues of every language have the messages English has, no
    /// others, and each with the same variables: a translation that drops or
    /// renames a variable, or a key added in one language only, fails here.
    #[test]
    fn every_language_has_every_message_with_the_same_variables() {
        let mut by_locale: BTreeMap<&str, BTreeMap<(String, &str), BTreeSet<String>>> =
            BTreeMap::new();
        for (l, file, text) in sources() {
            let parsed = fluent_syntax::parser::parse(text);
            assert!(
                parsed.is_ok(),
                "{}/{file} has syntax errors: {:?}",
                l.tag(),
                parsed.err().map(|e| e.1)
            );
            let entries = by_locale.entry(l.tag()).or_default();
            for (id, vars, _) in message_variables(text) {
                let previous = entries.insert((id.clone(), file), vars);
                assert!(
                    previous.is_none(),
                    "{}/{file}: {id} is defined twice",
                    l.tag()
                );
            }
        }
        let english = &by_locale["en"];
        assert!(
            english.len() > 100,
            "only {} English messages",
            english.len()
        );
        let mut problems = Vec::new();
        for (tag, entries) in &by_locale {
            for ((id, file), vars) in english {
                match entries.get(&(id.clone(), *file)) {
                    None => problems.push(format!("{tag}/{file}: {id} is missing")),
                    Some(v) if v != vars => {
                        problems.push(format!("{tag}/{file}: {id} uses {v:?}, English {vars:?}"))
                    }
                    Some(_) => {}
                }
            }
            for (id, file) in entries.keys() {
                if !english.contains_key(&(id.clone(), *file)) {
                    problems.push(format!("{tag}/{file}: {id} is not in English"));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// Every message formats without an error in every language, with its
    /// variables given as numbers that reach each plural form (a reference to
    /// a term or message that does not exist fails here).
    #[test]
    fn every_message_formats_in_every_language() {
        let mut failures = Vec::new();
        for (id, vars) in VARIABLES.iter() {
            for n in [0.0, 1.0, 2.0, 5.0, 21.0, 1.5] {
                let mut args = FluentArgs::new();
                for v in vars {
                    args.set(v.clone(), FluentValue::from(n));
                }
                for locale in Locale::ALL {
                    let (name, attribute) = match id.split_once('.') {
                        Some((n, a)) => (n, Some(a)),
                        None => (id.as_str(), None),
                    };
                    let bundle = &CATALOGUES[locale.index()].bundle;
                    let Some(message) = bundle.get_message(name) else {
                        continue;
                    };
                    let pattern = match attribute {
                        Some(a) => message.get_attribute(a).map(|a| a.value()),
                        None => message.value(),
                    };
                    let Some(pattern) = pattern else { continue };
                    let mut errors = Vec::new();
                    let text = bundle.format_pattern(pattern, Some(&args), &mut errors);
                    if !errors.is_empty() || text.trim().is_empty() {
                        failures.push(format!("{}: {id} with {n}: {errors:?}", locale.tag()));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn czech_plurals_have_their_four_forms() {
        let forms: Vec<String> = [1, 3, 5, 22]
            .into_iter()
            .filter_map(|n| {
                let mut args = FluentArgs::new();
                args.set("count", n);
                format(Locale::Cs, "count-seconds", &args)
            })
            .collect();
        assert_eq!(forms, ["1 sekunda", "3 sekundy", "5 sekund", "22 sekund"]);
        let mut args = FluentArgs::new();
        args.set("count", 1.5);
        assert_eq!(
            format(Locale::Cs, "count-seconds", &args).as_deref(),
            Some("1.5 sekundy")
        );
        let mut args = FluentArgs::new();
        args.set("count", 1);
        assert_eq!(
            format(Locale::Et, "count-seconds", &args).as_deref(),
            Some("1 sekund")
        );
        args.set("count", 2);
        assert_eq!(
            format(Locale::Et, "count-seconds", &args).as_deref(),
            Some("2 sekundit")
        );
    }
}
