/// A readable difference between two values, line by line over their `dump` output, for
/// assertion failures: lines only in `expected` start with `−`, lines only in `actual` with `+`.
func describeDifference(expected: some Any, actual: some Any) -> String {
    let old = dumpLines(expected)
    let new = dumpLines(actual)
    var lines: [String] = []
    for change in lineChanges(from: old, to: new) {
        switch change {
        case .same(let line): lines.append("  " + line)
        case .removed(let line): lines.append("− " + line)
        case .added(let line): lines.append("+ " + line)
        }
    }
    return lines.joined(separator: "\n")
}

/// `value` as `dump` prints it, one element per line.
func dumpLines(_ value: some Any) -> [String] {
    var text = ""
    dump(value, to: &text)
    return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
}

private enum LineChange {
    case same(String)
    case removed(String)
    case added(String)
}

/// The shortest edit from `old` to `new` by longest common subsequence; states are small.
private func lineChanges(from old: [String], to new: [String]) -> [LineChange] {
    let (n, m) = (old.count, new.count)
    var common = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
        for j in stride(from: m - 1, through: 0, by: -1) {
            common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
        }
    }
    var changes: [LineChange] = []
    var (i, j) = (0, 0)
    while i < n || j < m {
        if i < n, j < m, old[i] == new[j] {
            changes.append(.same(old[i]))
            i += 1
            j += 1
        } else if i < n, j == m || common[i + 1][j] >= common[i][j + 1] {
            changes.append(.removed(old[i]))
            i += 1
        } else {
            changes.append(.added(new[j]))
            j += 1
        }
    }
    return changes
}
