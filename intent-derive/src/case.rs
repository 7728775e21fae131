//! serde's `rename_all` rules, applied exactly as serde applies them to fields and variants.

/// A `rename_all` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    /// The rule named by serde's spelling (`"camelCase"`), if any.
    pub fn parse(name: &str) -> Option<RenameRule> {
        Some(match name {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// Applies the rule to a variant name written in `PascalCase`.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }

    /// Applies the rule to a field name written in `snake_case`.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule;

    #[test]
    fn fields_follow_serde_rules() {
        let cases = [
            (RenameRule::Lower, "deliver_by"),
            (RenameRule::Upper, "DELIVER_BY"),
            (RenameRule::Pascal, "DeliverBy"),
            (RenameRule::Camel, "deliverBy"),
            (RenameRule::Snake, "deliver_by"),
            (RenameRule::ScreamingSnake, "DELIVER_BY"),
            (RenameRule::Kebab, "deliver-by"),
            (RenameRule::ScreamingKebab, "DELIVER-BY"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rule.apply_to_field("deliver_by"), expected, "{rule:?}");
        }
    }

    #[test]
    fn variants_follow_serde_rules() {
        let cases = [
            (RenameRule::Lower, "verylate"),
            (RenameRule::Upper, "VERYLATE"),
            (RenameRule::Pascal, "VeryLate"),
            (RenameRule::Camel, "veryLate"),
            (RenameRule::Snake, "very_late"),
            (RenameRule::ScreamingSnake, "VERY_LATE"),
            (RenameRule::Kebab, "very-late"),
            (RenameRule::ScreamingKebab, "VERY-LATE"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rule.apply_to_variant("VeryLate"), expected, "{rule:?}");
        }
    }

    #[test]
    fn unknown_rule_is_none() {
        assert_eq!(RenameRule::parse("Title Case"), None);
        assert_eq!(RenameRule::parse("camelCase"), Some(RenameRule::Camel));
    }
}
