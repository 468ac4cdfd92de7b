/// A symbol under construction: its modules, and which of them belong to function patterns
/// (ISO/IEC 18004:2015 6.3) rather than to the encoding region.
struct SymbolMatrix {
    /// The symbol version, 1...40.
    let version: Int
    /// Modules per side.
    let size: Int
    /// Row-major modules, `true` for dark.
    private(set) var modules: [Bool]
    /// Row-major flags, `true` where a module is part of a function pattern or reserved for
    /// format or version information.
    private(set) var isFunction: [Bool]

    /// An empty symbol of `version` with every function pattern drawn and the format
    /// information area reserved.
    init(version: Int) {
        precondition((1...40).contains(version), "version must be in 1...40")
        self.version = version
        size = 17 + 4 * version
        modules = [Bool](repeating: false, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
        drawTimingPatterns()
        drawFinderPatterns()
        drawAlignmentPatterns()
        drawFormatInformation(0)
        drawVersionInformation()
        setFunction(x: 8, y: size - 8, dark: true)  // the dark module
    }

    /// Whether the module at column `x`, row `y` is dark.
    subscript(x: Int, y: Int) -> Bool {
        modules[y * size + x]
    }

    /// Places the codeword bits in the encoding region (ISO/IEC 18004:2015 7.7.3): two-module
    /// wide columns from the right edge, alternately upwards and downwards, skipping the
    /// vertical timing pattern and every function module. Remainder bits stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let bitCount = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        var upward = true
        while right >= 1 {
            if right == 6 {
                right = 5
            }
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] && bitIndex < bitCount {
                    let codeword = codewords[bitIndex / 8]
                    modules[y * size + x] = (codeword >> UInt8(7 - bitIndex % 8)) & 1 == 1
                    bitIndex += 1
                }
            }
            upward.toggle()
            right -= 2
        }
    }

    /// A copy with data mask `pattern` applied to the encoding region and the matching format
    /// information drawn.
    func masked(with pattern: Int, correction: QRCode.Correction) -> SymbolMatrix {
        var copy = self
        for y in 0..<size {
            for x in 0..<size
            where !isFunction[y * size + x] && DataMask.inverts(pattern: pattern, row: y, column: x) {
                copy.modules[y * size + x].toggle()
            }
        }
        copy.drawFormatInformation(
            FormatInformation.formatBits(correction: correction, mask: pattern)
        )
        return copy
    }

    private mutating func setFunction(x: Int, y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    /// Row 6 and column 6 alternate dark and light, starting dark.
    private mutating func drawTimingPatterns() {
        for index in 0..<size {
            setFunction(x: 6, y: index, dark: index % 2 == 0)
            setFunction(x: index, y: 6, dark: index % 2 == 0)
        }
    }

    /// The three 7 x 7 finder patterns with their light separators.
    private mutating func drawFinderPatterns() {
        for (centreX, centreY) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = centreX + dx
                    let y = centreY + dy
                    guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                    let ring = max(abs(dx), abs(dy))
                    setFunction(x: x, y: y, dark: ring != 2 && ring != 4)
                }
            }
        }
    }

    /// 5 x 5 alignment patterns at the standard centres, except where finders are.
    private mutating func drawAlignmentPatterns() {
        let centres = AlignmentPatternTable.centres[version - 1]
        guard let first = centres.first, let last = centres.last else { return }
        for centreY in centres {
            for centreX in centres {
                let overlapsFinder =
                    (centreX == first && centreY == first)
                    || (centreX == last && centreY == first)
                    || (centreX == first && centreY == last)
                guard !overlapsFinder else { continue }
                for dy in -2...2 {
                    for dx in -2...2 {
                        setFunction(x: centreX + dx, y: centreY + dy, dark: max(abs(dx), abs(dy)) != 1)
                    }
                }
            }
        }
    }

    /// Both copies of the 15-bit format information; bit 0 is the least significant.
    private mutating func drawFormatInformation(_ bits: Int) {
        for index in 0..<15 {
            let dark = (bits >> index) & 1 == 1
            // Around the top-left finder: up column 8, then left along row 8.
            switch index {
            case 0..<6: setFunction(x: 8, y: index, dark: dark)
            case 6..<8: setFunction(x: 8, y: index + 1, dark: dark)
            case 8: setFunction(x: 7, y: 8, dark: dark)
            default: setFunction(x: 14 - index, y: 8, dark: dark)
            }
            // Split between the top-right (row 8) and bottom-left (column 8) finders.
            if index < 8 {
                setFunction(x: size - 1 - index, y: 8, dark: dark)
            } else {
                setFunction(x: 8, y: size - 15 + index, dark: dark)
            }
        }
    }

    /// Both 6 x 3 blocks of version information, for versions 7 and up.
    private mutating func drawVersionInformation() {
        guard version >= 7 else { return }
        let bits = FormatInformation.versionBits(version: version)
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let near = index / 3
            let far = size - 11 + index % 3
            setFunction(x: far, y: near, dark: dark)  // above the top-right finder
            setFunction(x: near, y: far, dark: dark)  // left of the bottom-left finder
        }
    }
}
