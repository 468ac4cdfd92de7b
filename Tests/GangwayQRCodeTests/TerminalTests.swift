import GangwaySystem
import Testing

@testable import GangwayQRCode

/// The half-block terminal renderer.
@Suite("Terminal rendering")
struct TerminalTests {
    @Test("Shape and alphabet", arguments: [0, 1, 2, 4])
    func shape(quietZone: Int) throws {
        let code = try QRCode(encoding: "terminal")
        let lines = code.terminalLines(quietZone: quietZone)
        let extent = code.size + 2 * quietZone
        #expect(lines.count == (extent + 1) / 2)
        #expect(lines.allSatisfy { $0.count == extent })
        #expect(lines.allSatisfy { $0.allSatisfy { "▀▄█ ".contains($0) } })
    }

    @Test("Blocks mark light modules; two rows per line; the missing last row is light")
    func inverted() throws {
        let code = try QRCode(encoding: Fixtures.activationLink, correction: .low)
        let margin = 2
        let lines = code.terminalLines(quietZone: margin).map { Array($0) }
        let extent = code.size + 2 * margin
        for y in 0..<(extent + 1) {
            for x in 0..<extent {
                let character = lines[y / 2][x]
                let light =
                    y % 2 == 0 ? "█▀".contains(character) : "█▄".contains(character)
                #expect(light == !code[x - margin, y - margin], "(\(x), \(y))")
            }
        }
        // The quiet zone makes the first line all full blocks.
        #expect(lines[0].allSatisfy { $0 == "█" })
    }

    @Test(
        "Output equals qrencode -t UTF8 for the same version and mask",
        .enabled(
            if: Tools.qrencode.executable != nil,
            "qrencode not found on PATH: install the Debian package qrencode"
        ),
        arguments: ["crew", Fixtures.activationLink, Fixtures.asciiText(length: 400)]
    )
    func matchesQrencode(text: String) async throws {
        let bytes = Array(text.utf8)
        let (reference, ours) = try #require(try await Qrencode.paired(bytes))
        let expected = try #require(
            try await Qrencode.utf8Lines(
                bytes: bytes,
                correction: .medium,
                minimumVersion: reference.version,
                margin: 2
            )
        )
        #expect(ours.terminalLines(quietZone: 2) == expected)
    }
}
