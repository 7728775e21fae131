//! Findings per reply, bounded: at most [`MAX_FINDINGS`] issues, the last of them counting the
//! findings not listed, so a reply of a million wrong elements costs a retry prompt of fifty
//! lines, not a million. The retry prompt lists as many problems
//! ([`PREVIOUS_PROBLEMS_LIMIT`](crate::prompt::PREVIOUS_PROBLEMS_LIMIT)), so the count reaches the
//! model.

use crate::result::{IssueKind, ResultIssue};

/// The most issues one reply yields (in the result and in the retry prompt): when there are more
/// findings, the last issue counts the ones not listed.
pub const MAX_FINDINGS: usize = 50;

/// How the final issue begins: `"{count}{LEFT_OUT}"`.
const LEFT_OUT: &str = " more findings are not listed";

/// The findings of one reply: the first ones, and a count of the rest.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    listed: Vec<ResultIssue>,
    left_out: usize,
}

impl Findings {
    pub(crate) fn new() -> Self {
        Findings::default()
    }

    /// Adds a finding; the final issue of an already bounded list adds its count.
    pub(crate) fn push(&mut self, issue: ResultIssue) {
        if let Some(count) = left_out_count(&issue) {
            self.left_out += count;
        } else if self.listed.len() < MAX_FINDINGS {
            self.listed.push(issue);
        } else {
            self.left_out += 1;
        }
    }

    /// Adds every finding of `issues`.
    pub(crate) fn extend(&mut self, issues: impl IntoIterator<Item = ResultIssue>) {
        for issue in issues {
            self.push(issue);
        }
    }

    /// Counts `n` findings without listing them.
    pub(crate) fn count_more(&mut self, n: usize) {
        self.left_out += n;
    }

    /// Every finding, listed or counted.
    pub(crate) fn total(&self) -> usize {
        self.listed.len() + self.left_out
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// The findings listed so far.
    pub(crate) fn listed(&self) -> &[ResultIssue] {
        &self.listed
    }

    /// The listed findings, then the count of the rest, if any: at most [`MAX_FINDINGS`] issues.
    pub(crate) fn into_issues(mut self) -> Vec<ResultIssue> {
        if self.left_out > 0 {
            // The count takes the place of the last finding listed.
            let keep = MAX_FINDINGS - 1;
            self.left_out += self.listed.len().saturating_sub(keep);
            self.listed.truncate(keep);
            self.listed.push(ResultIssue::new(
                IssueKind::Shape,
                format!(
                    "{}{LEFT_OUT} (a reply's findings are listed in at most {MAX_FINDINGS} issues, this one included); fix the ones above, then check the rest of the value the same way.",
                    self.left_out
                ),
            ));
        }
        self.listed
    }
}

/// `issues`, bounded to [`MAX_FINDINGS`] and a final count.
pub(crate) fn bounded(issues: Vec<ResultIssue>) -> Vec<ResultIssue> {
    if issues.len() <= MAX_FINDINGS {
        return issues;
    }
    let mut findings = Findings::new();
    findings.extend(issues);
    findings.into_issues()
}

/// The count of a final "more findings" issue.
fn left_out_count(issue: &ResultIssue) -> Option<usize> {
    if issue.path.is_some() {
        return None;
    }
    let (count, rest) = issue.message.split_once(' ')?;
    rest.starts_with(LEFT_OUT.trim_start())
        .then(|| count.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(n: usize) -> ResultIssue {
        ResultIssue::at(format!("/value/{n}"), IssueKind::Shape, "Must be a string.")
    }

    #[test]
    fn the_rest_is_counted_in_one_final_issue() {
        let issues = bounded((0..1000).map(issue).collect());
        assert_eq!(issues.len(), MAX_FINDINGS);
        assert!(issues[MAX_FINDINGS - 1]
            .message
            .starts_with("951 more findings are not listed"));
        assert_eq!(bounded((0..50).map(issue).collect()).len(), 50);
        assert_eq!(bounded((0..51).map(issue).collect()).len(), 50);
    }

    #[test]
    fn bounded_lists_merge_their_counts() {
        let mut findings = Findings::new();
        findings.extend(bounded((0..60).map(issue).collect()));
        findings.extend(bounded((0..60).map(issue).collect()));
        assert_eq!(findings.total(), 120);
        let issues = findings.into_issues();
        assert!(issues[MAX_FINDINGS - 1]
            .message
            .starts_with("71 more findings are not listed"));
    }
}
