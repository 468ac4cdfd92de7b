import GangwaySystem
import GangwayTesting
import Testing

@testable import GangwayQRCode

/// Round trips through a real reader: the PNG renderer's output decoded by `zbarimg`.
@Suite(
    "Decoding with zbarimg",
    .enabled(
        if: Tools.zbarimg.executable != nil,
        "zbarimg not found on PATH: install the Debian package zbar-tools"
    ),
    .tags(.slow),
    .skipsTags
)
struct ZbarDecodingTests {
    static let samples: [String] = [
        "Hello, Gangway!",
        Fixtures.activationLink,
        "Crème brûlée — 東京駅 🚢 naïve façade, Ærø, Ελλάδα, Привет",
        "東京駅から横浜へ",
        "🚢⚓️🧭 all aboard 👩🏽‍✈️",
        "line one\nline two\ttabbed",
    ]

    @Test("Sample texts at every level", arguments: samples, QRCode.Correction.allCases)
    func sampleTexts(text: String, correction: QRCode.Correction) async throws {
        let code = try QRCode(encoding: text, correction: correction)
        #expect(try await Zbar.decode(png: code.png()) == text)
    }

    @Test("The activation link is about 120 characters and reads back")
    func activationLink() async throws {
        let link = Fixtures.activationLink
        #expect((110...130).contains(link.utf8.count))
        let code = try QRCode(encoding: link)
        #expect(try await Zbar.decode(png: code.png()) == link)
    }

    @Test("The empty string", arguments: QRCode.Correction.allCases)
    func emptyString(correction: QRCode.Correction) async throws {
        let code = try QRCode(encoding: "", correction: correction)
        #expect(code.version == 1)
        #expect(try await Zbar.decode(png: code.png()) == "")
    }

    @Test(
        "Full symbols of versions 1, 2, 7, 10, 20 and 40",
        arguments: [1, 2, 7, 10, 20, 40],
        QRCode.Correction.allCases
    )
    func versions(version: Int, correction: QRCode.Correction) async throws {
        let capacity = try #require(Fixtures.byteCapacities[version]?[correction])
        let text = Fixtures.asciiText(length: capacity, seed: version)
        let code = try QRCode(encoding: text, correction: correction)
        #expect(code.version == version)
        #expect(try await Zbar.decode(png: code.png(moduleSize: 4)) == text)
    }

    @Test(
        "One byte past a version's capacity reads back from the next version",
        arguments: [(1, QRCode.Correction.high), (6, .quartile), (9, .medium), (39, .low)]
    )
    func pastBoundary(version: Int, correction: QRCode.Correction) async throws {
        let length = QRCode.byteCapacity(version: version, correction: correction) + 1
        let text = Fixtures.asciiText(length: length, seed: length)
        let code = try QRCode(encoding: text, correction: correction)
        #expect(code.version == version + 1)
        #expect(try await Zbar.decode(png: code.png(moduleSize: 4)) == text)
    }

    @Test("Every forced mask reads back", arguments: 0...7)
    func everyMask(mask: Int) async throws {
        let text = Fixtures.asciiText(length: 100, seed: mask)
        let code = try QRCode(bytes: Array(text.utf8), correction: .quartile, forcedMask: mask)
        #expect(code.mask == mask)
        #expect(try await Zbar.decode(png: code.png(moduleSize: 3)) == text)
    }

    @Test("Small modules and no quiet zone beyond one module still read")
    func smallRendering() async throws {
        let code = try QRCode(encoding: Fixtures.activationLink, correction: .low)
        #expect(try await Zbar.decode(png: code.png(moduleSize: 2, quietZone: 2)) == Fixtures.activationLink)
    }
}
