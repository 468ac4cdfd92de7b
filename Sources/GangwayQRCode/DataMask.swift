/// The eight data mask patterns (ISO/IEC 18004:2015 7.8.2, Table 10).
enum DataMask {
    /// Whether mask `pattern` inverts the module at row `i`, column `j`.
    static func inverts(pattern: Int, row i: Int, column j: Int) -> Bool {
        switch pattern {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        case 7: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        default: preconditionFailure("mask pattern must be in 0...7")
        }
    }
}
