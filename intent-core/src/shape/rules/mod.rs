//! Member rules: ranges, lengths, patterns and item counts.
//!
//! Rules are never sent in a strict schema (providers refuse them); they are stated in the prompt's
//! output requirements and checked on every reply.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;

pub mod table;

/// The rules on one member.
///
/// ```
/// use intent_core::__internals::shape::Rules;
///
/// let rules = Rules { minimum: Some(1.0), max_length: Some(80), ..Rules::default() };
/// assert_eq!(rules.statements(), vec!["must not be below 1".to_owned(), "at most 80 characters".to_owned()]);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    /// The smallest allowed number.
    pub minimum: Option<f64>,
    /// The largest allowed number.
    pub maximum: Option<f64>,
    /// Numbers must be greater than this.
    pub exclusive_minimum: Option<f64>,
    /// Numbers must be less than this.
    pub exclusive_maximum: Option<f64>,
    /// Numbers must be a multiple of this.
    pub multiple_of: Option<f64>,
    /// The fewest characters in a string.
    pub min_length: Option<u64>,
    /// The most characters in a string.
    pub max_length: Option<u64>,
    /// A regular expression that a string must match (anywhere, unless anchored).
    pub pattern: Option<Pattern>,
    /// The fewest elements in a list.
    pub min_items: Option<u64>,
    /// The most elements in a list.
    pub max_items: Option<u64>,
    /// Every element of a list must be different.
    pub unique_items: bool,
    /// The only values allowed (from an intent file's `enum` rule).
    pub allowed: Option<Vec<serde_json::Value>>,
}

/// What kind of value a rule applies to, so the derive can refuse `max_length` on a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleTarget {
    /// Numbers: `minimum`, `maximum`, `exclusive_*`, `multiple_of`.
    Number,
    /// Strings: `min_length`, `max_length`, `pattern`.
    Text,
    /// Lists: `min_items`, `max_items`, `unique_items`.
    Items,
    /// Anything else: no rule applies.
    Other,
}

impl RuleTarget {
    /// True when `self` is `other` (usable in `const` assertions).
    pub const fn is(self, other: RuleTarget) -> bool {
        self as u8 == other as u8
    }
}

impl Rules {
    /// True when no rule is set.
    pub fn is_empty(&self) -> bool {
        let Rules {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
            multiple_of,
            min_length,
            max_length,
            pattern,
            min_items,
            max_items,
            unique_items,
            allowed,
        } = self;
        minimum.is_none()
            && maximum.is_none()
            && exclusive_minimum.is_none()
            && exclusive_maximum.is_none()
            && multiple_of.is_none()
            && min_length.is_none()
            && max_length.is_none()
            && pattern.is_none()
            && min_items.is_none()
            && max_items.is_none()
            && !unique_items
            && allowed.is_none()
    }

    /// The rules in words, for the prompt's output requirements.
    pub fn statements(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(v) = self.minimum {
            out.push(format!("must not be below {}", number(v)));
        }
        if let Some(v) = self.exclusive_minimum {
            out.push(format!("greater than {}", number(v)));
        }
        if let Some(v) = self.maximum {
            out.push(format!("must not be above {}", number(v)));
        }
        if let Some(v) = self.exclusive_maximum {
            out.push(format!("less than {}", number(v)));
        }
        if let Some(v) = self.multiple_of {
            out.push(format!("a multiple of {}", number(v)));
        }
        if let Some(v) = self.min_length {
            out.push(format!("at least {v} {}", plural(v, "character")));
        }
        if let Some(v) = self.max_length {
            out.push(format!("at most {v} {}", plural(v, "character")));
        }
        if let Some(p) = &self.pattern {
            out.push(format!("matching the regular expression {}", p.as_str()));
        }
        if let Some(v) = self.min_items {
            out.push(format!("at least {v} {}", plural(v, "element")));
        }
        if let Some(v) = self.max_items {
            out.push(format!("at most {v} {}", plural(v, "element")));
        }
        if self.unique_items {
            out.push("no two elements equal".to_owned());
        }
        if let Some(values) = &self.allowed {
            let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            out.push(format!("one of {}", list.join(", ")));
        }
        out
    }
}

/// A rule's number as every message writes it: whole numbers without a needless `.0` (`5`, not
/// `5.0`), very large or small magnitudes in exponent form (`1e20`), others as Rust prints them.
pub(crate) fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.is_finite() && (v.abs() >= 1e15 || (v != 0.0 && v.abs() < 1e-6)) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

pub(crate) fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// A compiled regular expression rule, cheap to clone.
///
/// ```
/// use intent_core::__internals::shape::Pattern;
///
/// let sku = Pattern::new("^[A-Z]-\\d+$").unwrap();
/// assert!(sku.is_match("B-220"));
/// assert!(!sku.is_match("b220"));
/// assert!(Pattern::new("(").is_err());
/// ```
#[derive(Clone)]
pub struct Pattern {
    source: Arc<str>,
    regex: Arc<Regex>,
}

impl Pattern {
    /// Compiles a pattern.
    pub fn new(source: &str) -> Result<Pattern, regex::Error> {
        let regex = Regex::new(source)?;
        Ok(Pattern {
            source: Arc::from(source),
            regex: Arc::new(regex),
        })
    }

    /// A pattern written in code (a derive attribute): compiled once per process and shared.
    pub fn cached(source: &'static str) -> Result<Pattern, regex::Error> {
        static CACHE: LazyLock<Mutex<HashMap<&'static str, Pattern>>> =
            LazyLock::new(|| Mutex::new(HashMap::new()));
        let mut cache = CACHE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(p) = cache.get(source) {
            return Ok(p.clone());
        }
        let p = Pattern::new(source)?;
        cache.insert(source, p.clone());
        Ok(p)
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True when the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&&*self.source).finish()
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl super::ShapeGraph {
    /// One line per member that has rules, the member named in words a model will not mistake for
    /// an answer ("`quantity` of each element of `lines`", never `lines[].quantity`), then its
    /// rules. Each named type is walked once, so a recursive type's rules are listed once.
    pub fn rule_lines(&self, root: super::NodeId) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_ruled_member(root, |path, rules, nullable| {
            let statements = rules.statements();
            if !statements.is_empty() {
                let steps: Vec<MemberStep<'_>> = path.iter().map(Seg::step).collect();
                out.push(rule_line(&steps, nullable, &statements));
            }
        });
        out
    }

    /// Calls `visit` with the path, the rules and whether it may be null, for every member below
    /// `root` that has rules, in the order [`rule_lines`](Self::rule_lines) states them. Each
    /// named type is walked once, so a recursive type's members are visited once.
    pub(crate) fn for_each_ruled_member(
        &self,
        root: super::NodeId,
        mut visit: impl FnMut(&[Seg], &Rules, bool),
    ) {
        use super::{Node, StructKind, VariantKind};
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(root, Vec::<Seg>::new())];
        while let Some((id, path)) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let mut children: Vec<(super::NodeId, Vec<Seg>)> = Vec::new();
            let with = |seg: Seg| {
                let mut p = path.clone();
                p.push(seg);
                p
            };
            match self.node(id) {
                Node::Option(inner) => children.push((*inner, path.clone())),
                Node::Seq { item, .. } => children.push((*item, with(Seg::Each))),
                Node::Map { value, .. } => children.push((*value, with(Seg::EachValue))),
                Node::Tuple(items) => {
                    for (i, item) in items.iter().enumerate() {
                        children.push((*item, with(Seg::Index(i))));
                    }
                }
                Node::Struct(s) => match &s.kind {
                    StructKind::Named(f) => self.member_rules(f, &path, &mut visit, &mut children),
                    StructKind::Newtype(inner) => children.push((*inner, path.clone())),
                    StructKind::Tuple(items) => {
                        for (i, item) in items.iter().enumerate() {
                            children.push((*item, with(Seg::Index(i))));
                        }
                    }
                    StructKind::Unit => {}
                },
                Node::Enum(e) => {
                    for v in &e.variants {
                        match &v.kind {
                            VariantKind::Struct(f) => {
                                self.member_rules(f, &path, &mut visit, &mut children)
                            }
                            VariantKind::Newtype(inner) => children.push((*inner, path.clone())),
                            VariantKind::Tuple(items) => {
                                for (i, item) in items.iter().enumerate() {
                                    children.push((*item, with(Seg::Index(i))));
                                }
                            }
                            VariantKind::Unit => {}
                        }
                    }
                }
                Node::Scalar(_) | Node::Reserved => {}
            }
            children.reverse();
            stack.extend(children);
        }
    }

    fn member_rules(
        &self,
        fields: &[super::Field],
        prefix: &[Seg],
        visit: &mut impl FnMut(&[Seg], &Rules, bool),
        children: &mut Vec<(super::NodeId, Vec<Seg>)>,
    ) {
        for f in fields {
            let mut member = prefix.to_vec();
            if !f.flatten {
                member.push(Seg::Member(f.name.to_string()));
            }
            if !f.rules.is_empty() {
                let nullable = matches!(self.node(f.ty), super::Node::Option(_));
                visit(&member, &f.rules, nullable);
            }
            children.push((f.ty, member));
        }
    }
}

/// A step of a path while the shape is walked (owned, since the walk outlives no field).
#[derive(Debug, Clone)]
pub(crate) enum Seg {
    Member(String),
    Each,
    EachValue,
    Index(usize),
}

impl Seg {
    /// The step as a rule line names it.
    pub(crate) fn step(&self) -> MemberStep<'_> {
        match self {
            Seg::Member(name) => MemberStep::Member(name),
            Seg::Each => MemberStep::Each,
            Seg::EachValue => MemberStep::EachValue,
            Seg::Index(i) => MemberStep::Index(*i),
        }
    }
}

/// One step of a member's path, as a rule line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemberStep<'a> {
    /// A named member of an object.
    Member(&'a str),
    /// Every element of a list.
    Each,
    /// Every value of a map.
    EachValue,
    /// The element at a fixed place of a tuple.
    Index(usize),
}

/// A member's path in words, the one wording of every rule line (the derive's and an intent
/// file's): "`lines`", "`address.city`", "`quantity` of each element of `lines`", "each element",
/// "the result". A small model copies what looks like an answer, so a path is never written in a
/// notation such as `lines[].quantity` or `[]`, which it may take for one.
///
/// ```ignore
/// use MemberStep::*;
/// assert_eq!(member_subject(&[Member("lines"), Each, Member("quantity")]), "`quantity` of each element of `lines`");
/// ```
pub(crate) fn member_subject(path: &[MemberStep<'_>]) -> String {
    fn render(context: &Option<String>, members: &[&str]) -> Option<String> {
        if members.is_empty() {
            return context.clone();
        }
        let dotted = format!("`{}`", members.join("."));
        Some(match context {
            Some(context) => format!("{dotted} of {context}"),
            None => dotted,
        })
    }
    let mut context: Option<String> = None;
    let mut members: Vec<&str> = Vec::new();
    for step in path {
        let collection = match step {
            MemberStep::Member(name) => {
                members.push(name);
                continue;
            }
            MemberStep::Each => "each element".to_owned(),
            MemberStep::EachValue => "each value".to_owned(),
            MemberStep::Index(i) => format!("the element at index {i}"),
        };
        context = Some(match render(&context, &members) {
            Some(of) => format!("{collection} of {of}"),
            None => collection,
        });
        members.clear();
    }
    render(&context, &members).unwrap_or_else(|| "the result".to_owned())
}

/// A rule line: the member in words, `, when not null` for a member that may be null (the rules
/// hold only for a value), then the rules in words.
pub(crate) fn rule_line(path: &[MemberStep<'_>], nullable: bool, statements: &[String]) -> String {
    format!(
        "- {}{}: {}",
        member_subject(path),
        if nullable { ", when not null" } else { "" },
        statements.join("; ")
    )
}

#[cfg(test)]
mod wording_tests {
    use super::MemberStep::*;
    use super::*;

    #[test]
    fn paths_are_named_in_words() {
        assert_eq!(member_subject(&[]), "the result");
        assert_eq!(member_subject(&[Member("quantity")]), "`quantity`");
        assert_eq!(
            member_subject(&[Member("address"), Member("city")]),
            "`address.city`"
        );
        assert_eq!(member_subject(&[Each]), "each element");
        assert_eq!(
            member_subject(&[Each, Member("sku")]),
            "`sku` of each element"
        );
        assert_eq!(
            member_subject(&[Member("lines"), Each, Member("quantity")]),
            "`quantity` of each element of `lines`"
        );
        assert_eq!(
            member_subject(&[Member("stock"), EachValue]),
            "each value of `stock`"
        );
        assert_eq!(
            member_subject(&[Member("grid"), Each, Each]),
            "each element of each element of `grid`"
        );
        assert_eq!(
            member_subject(&[Member("pair"), Index(1), Member("n")]),
            "`n` of the element at index 1 of `pair`"
        );
    }

    #[test]
    fn a_rule_line_says_when_null_is_allowed() {
        let rules = vec!["at least 1".to_owned(), "at most 9".to_owned()];
        assert_eq!(
            rule_line(&[Member("n")], true, &rules),
            "- `n`, when not null: at least 1; at most 9"
        );
        assert_eq!(
            rule_line(&[Member("n")], false, &rules[..1]),
            "- `n`: at least 1"
        );
    }
}
