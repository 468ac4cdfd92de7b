/// The data mask evaluation of ISO/IEC 18004:2015 7.8.3 (Table 11); lower is better.
///
/// - N1: each run of five or more same-coloured modules in a row or column scores
///   3 + (run length - 5).
/// - N2: each 2 x 2 block of one colour scores 3 (blocks may overlap).
/// - N3: each 1:1:3:1:1 finder-like pattern (dark, light, dark x3, light, dark, one module
///   each) that a light area four modules wide precedes or follows in a row or column scores
///   40, once even when both sides are light. Modules beyond the symbol edge count as light,
///   as the quiet zone is.
/// - N4: 10 for every full 5% that the proportion of dark modules deviates from 50%.
enum MaskPenalty {
    /// The four rules' total for a complete symbol (format information drawn).
    static func score(_ matrix: SymbolMatrix) -> Int {
        let size = matrix.size
        let modules = matrix.modules
        var total = 0
        var line = [Bool](repeating: false, count: size)
        for index in 0..<size {
            for offset in 0..<size {
                line[offset] = modules[index * size + offset]
            }
            total += runPenalty(line) + finderPenalty(line)
            for offset in 0..<size {
                line[offset] = modules[offset * size + index]
            }
            total += runPenalty(line) + finderPenalty(line)
        }
        total += blockPenalty(modules, size: size)
        total += balancePenalty(modules)
        return total
    }

    /// N1 for one row or column.
    static func runPenalty(_ line: [Bool]) -> Int {
        var total = 0
        var start = 0
        while start < line.count {
            var end = start + 1
            while end < line.count && line[end] == line[start] {
                end += 1
            }
            if end - start >= 5 {
                total += 3 + (end - start - 5)
            }
            start = end
        }
        return total
    }

    /// N3 for one row or column.
    static func finderPenalty(_ line: [Bool]) -> Int {
        let count = line.count
        /// Whether `line[range]` is light, counting modules beyond the edges as light.
        func isLight(_ range: Range<Int>) -> Bool {
            range.allSatisfy { !(0..<count).contains($0) || !line[$0] }
        }
        var total = 0
        var start = 0
        while start + 7 <= count {
            // Core dark : light : dark dark dark : light : dark.
            if line[start] && !line[start + 1] && line[start + 2] && line[start + 3]
                && line[start + 4] && !line[start + 5] && line[start + 6]
            {
                if isLight((start - 4)..<start) || isLight((start + 7)..<(start + 11)) {
                    total += 40
                }
            }
            start += 1
        }
        return total
    }

    /// N2 over the whole symbol.
    static func blockPenalty(_ modules: [Bool], size: Int) -> Int {
        var total = 0
        for y in 0..<(size - 1) {
            let row = y * size
            for x in 0..<(size - 1) {
                let colour = modules[row + x]
                if modules[row + x + 1] == colour && modules[row + size + x] == colour
                    && modules[row + size + x + 1] == colour
                {
                    total += 3
                }
            }
        }
        return total
    }

    /// N4 over the whole symbol.
    static func balancePenalty(_ modules: [Bool]) -> Int {
        let total = modules.count
        var dark = 0
        for module in modules where module {
            dark += 1
        }
        // |dark / total - 1/2| in units of 5%: |20 * dark - 10 * total| / total, rounded down.
        return 10 * (abs(20 * dark - 10 * total) / total)
    }
}
