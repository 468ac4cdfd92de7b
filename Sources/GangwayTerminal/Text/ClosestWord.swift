/// The word a person most likely meant when they typed one that is not there: `serv` for
/// `serve`, `stauts` for `status`. What a "did you mean" says.
public enum ClosestWord {
    /// The candidate `typed` most likely stands for: the only one it begins (two letters
    /// at least), or else the nearest within a third of its length in edits (one at least;
    /// a letter added, left out, changed, or two swapped); `nil` when none is near.
    public static func to(_ typed: String, among candidates: [String]) -> String? {
        let word = typed.lowercased()
        guard !word.isEmpty else { return nil }
        let beginning = candidates.filter { $0.lowercased().hasPrefix(word) }
        if word.count >= 2, beginning.count == 1 { return beginning[0] }
        let allowed = max(1, word.count / 3)
        let nearest = candidates.map { ($0, distance(word, $0.lowercased())) }.filter { $0.1 <= allowed }
            .min { $0.1 < $1.1 }
        return nearest?.0
    }

    /// The edits that turn `a` into `b`: letters added, left out or changed, and two
    /// neighbours swapped (the optimal string alignment distance).
    public static func distance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
