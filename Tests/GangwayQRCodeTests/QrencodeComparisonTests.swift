import GangwaySystem
import GangwayTesting
import Testing

@testable import GangwayQRCode

/// Cross-checks against the reference encoder `qrencode` (libqrencode).
@Suite(
    "Comparison with qrencode",
    .enabled(
        if: Tools.qrencode.executable != nil,
        "qrencode not found on PATH: install the Debian package qrencode"
    ),
    .tags(.slow),
    .skipsTags
)
struct QrencodeComparisonTests {
    @Test(
        "Chosen version equals qrencode's at every capacity boundary",
        arguments: QRCode.Correction.allCases
    )
    func versionAtBoundaries(correction: QRCode.Correction) async throws {
        var lengths: Set<Int> = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987]
        for version in 1...40 {
            let capacity = QRCode.byteCapacity(version: version, correction: correction)
            lengths.insert(capacity)
            if version < 40 {
                lengths.insert(capacity + 1)
            }
        }
        let limit = QRCode.byteCapacity(version: 40, correction: correction)
        for length in lengths.sorted() where length >= 1 && length <= limit {
            let bytes = Array(Fixtures.asciiText(length: length, seed: length).utf8)
            let reference = try #require(try await Qrencode.symbol(bytes: bytes, correction: correction))
            let ours = try QRCode(bytes: bytes, correction: correction)
            #expect(ours.version == reference.version, "\(length) bytes")
        }
    }

    @Test(
        "Modules equal qrencode's for the same version and mask, versions 1...40",
        arguments: QRCode.Correction.allCases
    )
    func matricesMatch(correction: QRCode.Correction) async throws {
        for version in 1...40 {
            // Full symbols exercise every block; a short text exercises the pad codewords.
            let capacity = QRCode.byteCapacity(version: version, correction: correction)
            for length in [capacity, version * 3] {
                let bytes = Array(Fixtures.asciiText(length: length, seed: version).utf8)
                let reference = try #require(
                    try await Qrencode.symbol(bytes: bytes, correction: correction, minimumVersion: version)
                )
                try #require(reference.version == version, "qrencode chose another version")
                let ours = try QRCode(
                    bytes: bytes,
                    correction: correction,
                    minimumVersion: version,
                    forcedMask: reference.mask
                )
                #expect(ours.size == reference.size)
                #expect(reference.rows.allSatisfy { $0.count == reference.size })
                let differing = (0..<ours.size).reduce(0) { count, y in
                    count + (0..<ours.size).filter { x in ours[x, y] != reference.rows[y][x] }.count
                }
                #expect(differing == 0, "version \(version), \(length) bytes: \(differing) modules differ")
            }
        }
    }

    @Test("UTF-8 text matches qrencode module for module")
    func utf8Matches() async throws {
        let bytes = Array("Crème brûlée — 東京駅 🚢".utf8)
        let (reference, ours) = try #require(try await Qrencode.paired(bytes))
        #expect(ours.version == reference.version)
        for y in 0..<ours.size {
            #expect((0..<ours.size).map { ours[$0, y] } == reference.rows[y], "row \(y)")
        }
    }
}
