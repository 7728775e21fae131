//! Which rules apply to which members, and which rules cannot be set together: one table, read by
//! `#[derive(Intent)]` at compile time and by the catalog when an intent file is loaded, so that
//! both accept and refuse the same things, in the same words.
//!
//! Everything here is a `const fn`. The derive's generated code evaluates it in `const` items over
//! `<T as Intent>::__RULE_TARGET` (the member's resolved type, not its name), so a misplaced rule is
//! a build error spanned at the attribute; the catalog calls the same functions at load time.
//!
//! The table, by rule family:
//!
//! | family | rules | apply to |
//! |---|---|---|
//! | number | `minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum`, `multiple_of` | integers, floats, `Decimal` |
//! | text | `min_length`, `max_length`, `pattern` | every member whose JSON form is a string: `String`, `char`, chrono dates and times, `Uuid`, `Url`, enums of unit variants (externally tagged) |
//! | list | `min_items`, `max_items`, `unique_items` | `Vec`, `VecDeque`, `LinkedList`, sets, arrays |
//! | any | `enum` (intent files only) | every member |
//!
//! An `Option`, `Box`, `Arc`, `Rc`, a newtype struct and a `#[serde(transparent)]` struct take the
//! rules of what they wrap. Maps, tuples, structs, data enums, `bool`, `()` and `serde_json::Value`
//! take none (a `Value` may hold anything, so no rule of one kind can be checked on it).
//!
//! Refused combinations: rules of two families on one member; `minimum` with `exclusive_minimum`
//! (and `maximum` with `exclusive_maximum`: two bounds on one side, keep one); a lower bound not
//! below the upper one (no number fits); `min_length` above `max_length`, `min_items` above
//! `max_items`; `multiple_of` of 0 or less.
//!
//! ```
//! use intent_core::__internals::rule_table::{fits, misfit, RuleKind, RuleNaming};
//! use intent_core::__internals::shape::RuleTarget;
//!
//! assert!(fits(RuleKind::Pattern, RuleTarget::Text));
//! assert!(!fits(RuleKind::MaxLength, RuleTarget::Number));
//! assert!(misfit(RuleKind::Minimum, RuleTarget::Text, RuleNaming::Keyword)
//!     .unwrap()
//!     .starts_with("number rules (`minimum`"));
//! ```

use crate::shape::{Kinds, Scalar, ShapeGraph};
use crate::shape::{Node, NodeId, StructKind};

use super::RuleTarget;

/// One member rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// `minimum`: the smallest allowed number.
    Minimum,
    /// `maximum`: the largest allowed number.
    Maximum,
    /// `exclusive_minimum`: numbers must be greater.
    ExclusiveMinimum,
    /// `exclusive_maximum`: numbers must be less.
    ExclusiveMaximum,
    /// `multiple_of`: numbers must be a multiple.
    MultipleOf,
    /// `min_length`: the fewest characters.
    MinLength,
    /// `max_length`: the most characters.
    MaxLength,
    /// `pattern`: a regular expression the text matches.
    Pattern,
    /// `min_items`: the fewest elements.
    MinItems,
    /// `max_items`: the most elements.
    MaxItems,
    /// `unique_items`: no two elements equal.
    UniqueItems,
    /// `enum` (intent files only): the only values allowed. Applies to any member.
    Allowed,
}

/// How rules are named in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleNaming {
    /// As `#[intent(...)]` attributes: `max_length`.
    Attribute,
    /// As an intent file's keywords (JSON Schema's names): `maxLength`.
    Keyword,
}

impl RuleKind {
    /// Every rule, in the order rules are stated.
    pub const ALL: [RuleKind; 12] = [
        RuleKind::Minimum,
        RuleKind::Maximum,
        RuleKind::ExclusiveMinimum,
        RuleKind::ExclusiveMaximum,
        RuleKind::MultipleOf,
        RuleKind::MinLength,
        RuleKind::MaxLength,
        RuleKind::Pattern,
        RuleKind::MinItems,
        RuleKind::MaxItems,
        RuleKind::UniqueItems,
        RuleKind::Allowed,
    ];

    /// The rule's name, as an attribute (`max_length`) or a keyword (`maxLength`).
    pub const fn name(self, naming: RuleNaming) -> &'static str {
        let (attribute, keyword) = match self {
            RuleKind::Minimum => ("minimum", "minimum"),
            RuleKind::Maximum => ("maximum", "maximum"),
            RuleKind::ExclusiveMinimum => ("exclusive_minimum", "exclusiveMinimum"),
            RuleKind::ExclusiveMaximum => ("exclusive_maximum", "exclusiveMaximum"),
            RuleKind::MultipleOf => ("multiple_of", "multipleOf"),
            RuleKind::MinLength => ("min_length", "minLength"),
            RuleKind::MaxLength => ("max_length", "maxLength"),
            RuleKind::Pattern => ("pattern", "pattern"),
            RuleKind::MinItems => ("min_items", "minItems"),
            RuleKind::MaxItems => ("max_items", "maxItems"),
            RuleKind::UniqueItems => ("unique_items", "uniqueItems"),
            RuleKind::Allowed => ("enum", "enum"),
        };
        match naming {
            RuleNaming::Attribute => attribute,
            RuleNaming::Keyword => keyword,
        }
    }

    /// The kind of member the rule needs, or `None` for a rule that applies to any (`enum`).
    pub const fn family(self) -> Option<RuleTarget> {
        match self {
            RuleKind::Minimum
            | RuleKind::Maximum
            | RuleKind::ExclusiveMinimum
            | RuleKind::ExclusiveMaximum
            | RuleKind::MultipleOf => Some(RuleTarget::Number),
            RuleKind::MinLength | RuleKind::MaxLength | RuleKind::Pattern => Some(RuleTarget::Text),
            RuleKind::MinItems | RuleKind::MaxItems | RuleKind::UniqueItems => {
                Some(RuleTarget::Items)
            }
            RuleKind::Allowed => None,
        }
    }
}

/// True when `rule` applies to a member whose rule target is `target`.
pub const fn fits(rule: RuleKind, target: RuleTarget) -> bool {
    match rule.family() {
        Some(family) => family.is(target),
        None => true,
    }
}

/// Why `rule` does not apply to a member whose rule target is `target`, or `None` when it does.
pub const fn misfit(
    rule: RuleKind,
    target: RuleTarget,
    naming: RuleNaming,
) -> Option<&'static str> {
    if fits(rule, target) {
        return None;
    }
    let attribute = matches!(naming, RuleNaming::Attribute);
    Some(match rule.family() {
        Some(RuleTarget::Number) if attribute => {
            "number rules (`minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum`, \
             `multiple_of`) apply only to numbers: integers, floats and decimals, or an `Option` \
             of one"
        }
        Some(RuleTarget::Number) => {
            "number rules (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, \
             `multipleOf`) apply only to numbers: integers, floats and decimals"
        }
        Some(RuleTarget::Text) if attribute => {
            "text rules (`min_length`, `max_length`, `pattern`) apply only to text: strings, \
             characters, dates and times, UUIDs, URLs and enums of unit variants, or an `Option` \
             of one"
        }
        Some(RuleTarget::Text) => {
            "text rules (`minLength`, `maxLength`, `pattern`) apply only to text: strings, \
             characters, dates and times, UUIDs, URLs and enums of unit variants"
        }
        Some(_) if attribute => {
            "list rules (`min_items`, `max_items`, `unique_items`) apply only to lists: `Vec`, \
             `VecDeque`, sets and arrays, or an `Option` of one"
        }
        Some(_) => {
            "list rules (`minItems`, `maxItems`, `uniqueItems`) apply only to lists: arrays and sets"
        }
        None => return None,
    })
}

/// Why the rules `set` on one member do not fit its rule target `target`, or `None`: when they
/// fit, and when they conflict among themselves (then [`conflict`] says why, and one error is
/// enough).
pub const fn misfit_among(
    set: &[RuleKind],
    target: RuleTarget,
    naming: RuleNaming,
) -> Option<&'static str> {
    let mut i = 0;
    while i < set.len() {
        let mut j = i + 1;
        while j < set.len() {
            if conflict(set[i], set[j], naming).is_some() {
                return None;
            }
            j += 1;
        }
        i += 1;
    }
    let mut k = 0;
    while k < set.len() {
        if let Some(message) = misfit(set[k], target, naming) {
            return Some(message);
        }
        k += 1;
    }
    None
}

/// Why `a` and `b` cannot both be set on one member, or `None` when they can.
pub const fn conflict(a: RuleKind, b: RuleKind, naming: RuleNaming) -> Option<&'static str> {
    if let (Some(x), Some(y)) = (a.family(), b.family()) {
        if !x.is(y) {
            let number = x.is(RuleTarget::Number) || y.is(RuleTarget::Number);
            let text = x.is(RuleTarget::Text) || y.is(RuleTarget::Text);
            return Some(match (number, text) {
                (true, true) => {
                    "conflicting rules: number rules and text rules cannot be set on one member; \
                     a member is a number, a text or a list"
                }
                (true, false) => {
                    "conflicting rules: number rules and list rules cannot be set on one member; \
                     a member is a number, a text or a list"
                }
                _ => {
                    "conflicting rules: text rules and list rules cannot be set on one member; a \
                     member is a number, a text or a list"
                }
            });
        }
    }
    // A bound and its exclusive twin on one side, in the naming of the place they were written.
    const BOTH_BOUNDS: [[&str; 2]; 2] = [
        [
            "conflicting rules: `minimum` and `exclusive_minimum` both bound the number from \
             below; keep one",
            "conflicting rules: `minimum` and `exclusiveMinimum` both bound the number from \
             below; keep one",
        ],
        [
            "conflicting rules: `maximum` and `exclusive_maximum` both bound the number from \
             above; keep one",
            "conflicting rules: `maximum` and `exclusiveMaximum` both bound the number from \
             above; keep one",
        ],
    ];
    let side = match (a, b) {
        (RuleKind::Minimum, RuleKind::ExclusiveMinimum)
        | (RuleKind::ExclusiveMinimum, RuleKind::Minimum) => 0,
        (RuleKind::Maximum, RuleKind::ExclusiveMaximum)
        | (RuleKind::ExclusiveMaximum, RuleKind::Maximum) => 1,
        _ => return None,
    };
    let naming = match naming {
        RuleNaming::Attribute => 0,
        RuleNaming::Keyword => 1,
    };
    Some(BOTH_BOUNDS[side][naming])
}

/// Why a lower bound `low` of `lo` and an upper bound `high` of `hi` leave no number, or `None`
/// when some number fits (or when `low` is not a lower bound and `high` not an upper one).
pub const fn range_conflict(
    low: RuleKind,
    lo: f64,
    high: RuleKind,
    hi: f64,
    naming: RuleNaming,
) -> Option<&'static str> {
    let low_open = match low {
        RuleKind::Minimum => false,
        RuleKind::ExclusiveMinimum => true,
        _ => return None,
    };
    let high_open = match high {
        RuleKind::Maximum => false,
        RuleKind::ExclusiveMaximum => true,
        _ => return None,
    };
    let empty = lo > hi || (lo == hi && (low_open || high_open));
    if !empty {
        return None;
    }
    macro_rules! no_number {
        ($low:literal, $high:literal) => {
            concat!(
                "conflicting rules: `",
                $low,
                "` and `",
                $high,
                "` leave no number that satisfies both"
            )
        };
    }
    let attribute = matches!(naming, RuleNaming::Attribute);
    Some(match (low_open, high_open, attribute) {
        (false, false, _) => no_number!("minimum", "maximum"),
        (false, true, true) => no_number!("minimum", "exclusive_maximum"),
        (false, true, false) => no_number!("minimum", "exclusiveMaximum"),
        (true, false, true) => no_number!("exclusive_minimum", "maximum"),
        (true, false, false) => no_number!("exclusiveMinimum", "maximum"),
        (true, true, true) => no_number!("exclusive_minimum", "exclusive_maximum"),
        (true, true, false) => no_number!("exclusiveMinimum", "exclusiveMaximum"),
    })
}

/// Why a `min_*` of `min` and a `max_*` of `max` leave no length or count, or `None`.
pub const fn count_conflict(
    low: RuleKind,
    min: u64,
    high: RuleKind,
    max: u64,
    naming: RuleNaming,
) -> Option<&'static str> {
    if min <= max {
        return None;
    }
    let attribute = matches!(naming, RuleNaming::Attribute);
    match (low, high) {
        (RuleKind::MinLength, RuleKind::MaxLength) => Some(if attribute {
            "conflicting rules: `min_length` is greater than `max_length`"
        } else {
            "conflicting rules: `minLength` is greater than `maxLength`"
        }),
        (RuleKind::MinItems, RuleKind::MaxItems) => Some(if attribute {
            "conflicting rules: `min_items` is greater than `max_items`"
        } else {
            "conflicting rules: `minItems` is greater than `maxItems`"
        }),
        _ => None,
    }
}

/// Why `from_input` (`fromInput` in an intent file) does not fit a member: it says a value is
/// copied from the input's text, so it applies to text, to lists of text, and (on a type, or an
/// intent file's object member) to every text member of a struct; the derive and the catalog
/// refuse it elsewhere in these words.
pub const FROM_INPUT_MISFIT: &str = "`from_input` applies to text members (a string, or an `Option` or a list of strings) and to structs (their text members): it says the value is copied from the input's text";

/// Why `step` is no `multiple_of`, or `None` when it is one (greater than 0).
pub const fn multiple_of_refusal(step: f64, naming: RuleNaming) -> Option<&'static str> {
    if step > 0.0 {
        return None;
    }
    Some(match naming {
        RuleNaming::Attribute => "`multiple_of` must be greater than 0",
        RuleNaming::Keyword => "`multipleOf` must be greater than 0",
    })
}

/// The rule target of a scalar: what `<T as Intent>::__RULE_TARGET` is for the types that
/// register it. It follows what JSON the scalar is read from ([`Scalar::kinds`], the one table of
/// it): a number (also from a string that holds one) takes number rules, a string alone text
/// rules, anything else none.
pub const fn scalar_target(scalar: Scalar) -> RuleTarget {
    let kinds = scalar.kinds();
    if kinds.is_any() {
        RuleTarget::Other
    } else if kinds.meets(Kinds::NUMBER) {
        RuleTarget::Number
    } else if kinds.meets(Kinds::STRING) {
        RuleTarget::Text
    } else {
        RuleTarget::Other
    }
}

/// Whether a scalar may be declared to come from the input (`#[intent(from_input)]`): what
/// `<T as Intent>::__FROM_INPUT` is for the types that register it. Text is copied from an input;
/// a date, a number or a `bool` is read from it, in a form of its own.
pub const fn scalar_from_input(scalar: Scalar) -> bool {
    matches!(
        scalar,
        Scalar::String | Scalar::Char | Scalar::Uuid | Scalar::Url
    )
}

/// The rule target of a JSON Schema `type` (`integer`, `string`, ...).
#[cfg(feature = "catalog")]
pub fn schema_type_target(schema_type: &str) -> RuleTarget {
    match schema_type {
        "integer" | "number" => RuleTarget::Number,
        "string" => RuleTarget::Text,
        "array" => RuleTarget::Items,
        _ => RuleTarget::Other,
    }
}

impl ShapeGraph {
    /// The rule target of the member at `id`, as `<T as Intent>::__RULE_TARGET` gives it for the
    /// type that registered the node: options, pointers, newtype and transparent structs looked
    /// through.
    pub(crate) fn rule_target(&self, id: NodeId) -> RuleTarget {
        let mut id = id;
        // Each step looks through one wrapper; a newtype cycle ends after one pass of the graph.
        for _ in 0..=self.len() {
            match self.node(self.resolve(id)) {
                Node::Option(inner) => id = *inner,
                Node::Struct(s) => match &s.kind {
                    StructKind::Newtype(inner) => id = *inner,
                    _ => return RuleTarget::Other,
                },
                Node::Scalar(s) => return scalar_target(*s),
                Node::Seq { .. } => return RuleTarget::Items,
                Node::Enum(e) if e.is_unit_only() => return RuleTarget::Text,
                Node::Enum(_) | Node::Map { .. } | Node::Tuple(_) | Node::Reserved => {
                    return RuleTarget::Other
                }
            }
        }
        RuleTarget::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_fits_its_own_family_only() {
        let targets = [
            RuleTarget::Number,
            RuleTarget::Text,
            RuleTarget::Items,
            RuleTarget::Other,
        ];
        for rule in RuleKind::ALL {
            for target in targets {
                let fits = fits(rule, target);
                assert_eq!(
                    fits,
                    rule.family().is_none_or(|f| f == target),
                    "{rule:?} on {target:?}"
                );
                for naming in [RuleNaming::Attribute, RuleNaming::Keyword] {
                    assert_eq!(misfit(rule, target, naming).is_none(), fits);
                }
            }
        }
    }

    #[test]
    fn conflicts_are_symmetric_and_name_the_rules_as_written() {
        for a in RuleKind::ALL {
            for b in RuleKind::ALL {
                for naming in [RuleNaming::Attribute, RuleNaming::Keyword] {
                    assert_eq!(
                        conflict(a, b, naming),
                        conflict(b, a, naming),
                        "{a:?} {b:?}"
                    );
                }
            }
        }
        assert_eq!(
            conflict(
                RuleKind::ExclusiveMinimum,
                RuleKind::Minimum,
                RuleNaming::Keyword
            ),
            Some(
                "conflicting rules: `minimum` and `exclusiveMinimum` both bound the number from \
                 below; keep one"
            )
        );
        assert!(conflict(RuleKind::Allowed, RuleKind::Pattern, RuleNaming::Keyword).is_none());
        let mixed = [RuleKind::MaxLength, RuleKind::Minimum];
        assert!(misfit_among(&mixed, RuleTarget::Text, RuleNaming::Attribute).is_none());
        let text = [RuleKind::MaxLength, RuleKind::Pattern];
        assert!(misfit_among(&text, RuleTarget::Number, RuleNaming::Attribute).is_some());
        assert!(misfit_among(&text, RuleTarget::Text, RuleNaming::Attribute).is_none());
        assert!(conflict(RuleKind::MinLength, RuleKind::Pattern, RuleNaming::Keyword).is_none());
    }

    #[test]
    fn ranges_without_a_number_are_refused() {
        let n = RuleNaming::Attribute;
        use RuleKind::*;
        assert!(range_conflict(Minimum, 1.0, Maximum, 1.0, n).is_none());
        assert!(range_conflict(Minimum, 2.0, Maximum, 1.0, n).is_some());
        assert!(range_conflict(Minimum, 1.0, ExclusiveMaximum, 1.0, n).is_some());
        assert!(range_conflict(ExclusiveMinimum, 0.0, ExclusiveMaximum, 0.5, n).is_none());
        assert!(count_conflict(MinLength, 3, MaxLength, 2, n).is_some());
        assert!(count_conflict(MinItems, 2, MaxItems, 2, n).is_none());
        assert!(multiple_of_refusal(0.0, n).is_some());
        assert!(multiple_of_refusal(f64::NAN, n).is_some());
        assert!(multiple_of_refusal(0.5, n).is_none());
    }
}
