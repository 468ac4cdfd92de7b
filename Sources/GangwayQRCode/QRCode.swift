/// A QR Code symbol (ISO/IEC 18004, model 2): a square matrix of dark and light modules.
///
/// The text is encoded as its UTF-8 bytes in byte mode, in the smallest version (1...40)
/// that holds it at the requested error correction level. The data mask (0...7) is the one
/// with the lowest penalty score under the standard's four rules.
///
/// ```swift
/// let code = try QRCode(encoding: "https://gangway.example", correction: .medium)
/// let svg = code.svg(title: "Activation link")
/// ```
public struct QRCode: Sendable, Equatable {
    /// The most pixels per module a drawing takes: a version 40 code at 64 is 11,776 pixels
    /// square, far past any print, and well within an image's sizes.
    public static let largestModuleSize = 64
    /// The widest quiet zone a drawing takes, in modules.
    public static let largestQuietZone = 64

    /// The symbol version, 1...40. The matrix has `17 + 4 * version` modules per side.
    public let version: Int

    /// The error correction level the symbol was encoded with.
    public let correction: Correction

    /// The data mask pattern (0...7) applied to the symbol.
    public let mask: Int

    /// The number of modules per side, without any quiet zone.
    public let size: Int

    /// Row-major modules, `true` for dark.
    private let modules: [Bool]

    /// Encodes `text` as a QR Code symbol.
    ///
    /// - Parameters:
    ///   - text: The text to encode; its UTF-8 bytes are stored in byte mode, without an ECI header.
    ///   - correction: The error correction level; `.medium` recovers about 15% of the codewords.
    /// - Throws: ``EncodingError/textTooLong(byteCount:maximum:)`` when the UTF-8 bytes do not fit
    ///   in version 40 at `correction`.
    public init(encoding text: String, correction: Correction = .medium) throws(EncodingError) {
        try self.init(bytes: Array(text.utf8), correction: correction)
    }

    /// Encodes raw bytes in byte mode.
    ///
    /// - Parameters:
    ///   - bytes: The data to encode.
    ///   - correction: The error correction level.
    ///   - minimumVersion: The smallest version to consider (clamped to 1...40).
    ///   - forcedMask: A mask to use instead of the lowest-penalty one; must be in 0...7.
    init(
        bytes: [UInt8],
        correction: Correction,
        minimumVersion: Int = 1,
        forcedMask: Int? = nil
    ) throws(EncodingError) {
        let version = try Self.smallestVersion(
            for: bytes.count,
            correction: correction,
            from: minimumVersion
        )
        let layout = BlockLayout(version: version, correction: correction)
        let data = DataCodewords.make(bytes: bytes, version: version, correction: correction)
        let codewords = layout.interleavedCodewords(data: data)

        var matrix = SymbolMatrix(version: version)
        matrix.placeCodewords(codewords)

        if let forcedMask {
            precondition((0...7).contains(forcedMask), "mask must be in 0...7")
        }
        let mask = forcedMask ?? Self.lowestPenaltyMask(of: matrix, correction: correction)
        let masked = matrix.masked(with: mask, correction: correction)

        self.version = version
        self.correction = correction
        self.mask = mask
        self.size = masked.size
        self.modules = masked.modules
    }

    /// Whether the module at column `x`, row `y` is dark.
    ///
    /// Coordinates start at the top-left corner. Coordinates outside `0..<size` are light,
    /// as the quiet zone around the symbol is.
    public subscript(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    /// The largest number of bytes that `version` holds in byte mode at `correction`.
    static func byteCapacity(version: Int, correction: Correction) -> Int {
        DataCodewords.byteCapacity(version: version, correction: correction)
    }

    private static func smallestVersion(
        for byteCount: Int,
        correction: Correction,
        from minimumVersion: Int
    ) throws(EncodingError) -> Int {
        let first = min(max(minimumVersion, 1), 40)
        for version in first...40
        where byteCount <= byteCapacity(version: version, correction: correction) {
            return version
        }
        throw .textTooLong(
            byteCount: byteCount,
            maximum: byteCapacity(version: 40, correction: correction)
        )
    }

    /// The mask whose symbol scores lowest; ties go to the lower mask number.
    private static func lowestPenaltyMask(
        of matrix: SymbolMatrix,
        correction: Correction
    ) -> Int {
        var bestMask = 0
        var bestScore = Int.max
        for mask in 0...7 {
            let score = MaskPenalty.score(matrix.masked(with: mask, correction: correction))
            if score < bestScore {
                bestMask = mask
                bestScore = score
            }
        }
        return bestMask
    }
}
