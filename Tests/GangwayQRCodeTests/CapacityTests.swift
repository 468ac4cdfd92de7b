import Testing

@testable import GangwayQRCode

/// Version selection and the limits of byte mode.
@Suite("Capacity")
struct CapacityTests {
    @Test("Byte capacities match Table 7", arguments: QRCode.Correction.allCases)
    func capacitiesMatchStandard(correction: QRCode.Correction) {
        for (version, capacities) in Fixtures.byteCapacities {
            #expect(
                QRCode.byteCapacity(version: version, correction: correction) == capacities[correction],
                "version \(version)"
            )
        }
    }

    @Test(
        "Exact boundaries: the maximum fits in v, one byte more moves to v + 1",
        arguments: QRCode.Correction.allCases
    )
    func boundaries(correction: QRCode.Correction) throws {
        for version in [1, 2, 6, 7, 9, 10, 20, 26, 39] {
            let maximum = QRCode.byteCapacity(version: version, correction: correction)
            let fits = try QRCode(encoding: Fixtures.asciiText(length: maximum), correction: correction)
            #expect(fits.version == version, "\(maximum) bytes")
            #expect(fits.size == 17 + 4 * version)
            let spills = try QRCode(
                encoding: Fixtures.asciiText(length: maximum + 1),
                correction: correction
            )
            #expect(spills.version == version + 1, "\(maximum + 1) bytes")
        }
    }

    @Test("Every capacity grows with the version and level order holds")
    func capacitiesAreMonotonic() {
        for version in 1...40 {
            let levels = QRCode.Correction.allCases.map {
                QRCode.byteCapacity(version: version, correction: $0)
            }
            #expect(levels == levels.sorted(by: >), "version \(version)")
            if version > 1 {
                for correction in QRCode.Correction.allCases {
                    #expect(
                        QRCode.byteCapacity(version: version, correction: correction)
                            > QRCode.byteCapacity(version: version - 1, correction: correction)
                    )
                }
            }
        }
    }

    @Test("2953 bytes fit version 40-L; 2954 throw textTooLong")
    func longestText() throws {
        let code = try QRCode(encoding: Fixtures.asciiText(length: 2953), correction: .low)
        #expect(code.version == 40)
        #expect(code.size == 177)
        #expect(throws: QRCode.EncodingError.textTooLong(byteCount: 2954, maximum: 2953)) {
            try QRCode(encoding: Fixtures.asciiText(length: 2954), correction: .low)
        }
    }

    @Test(
        "Too long at every level names the level's maximum",
        arguments: zip(QRCode.Correction.allCases, [2953, 2331, 1663, 1273])
    )
    func tooLongAtEachLevel(correction: QRCode.Correction, maximum: Int) {
        #expect(throws: QRCode.EncodingError.textTooLong(byteCount: maximum + 1, maximum: maximum)) {
            try QRCode(encoding: Fixtures.asciiText(length: maximum + 1), correction: correction)
        }
    }

    @Test("The limit counts UTF-8 bytes, not characters")
    func limitCountsBytes() throws {
        // 1273 two-byte characters are 2546 bytes: too long for 40-H (1273 bytes).
        let accents = String(repeating: "é", count: 1273)
        #expect(throws: QRCode.EncodingError.textTooLong(byteCount: 2546, maximum: 1273)) {
            try QRCode(encoding: accents, correction: .high)
        }
        do {
            _ = try QRCode(encoding: accents, correction: .high)
        } catch {
            // The typed throw lets the error be inspected without casting.
            #expect(error.description.contains("2546"))
        }
    }

    @Test("Default correction level is medium")
    func defaultLevel() throws {
        let code = try QRCode(encoding: "crew")
        #expect(code.correction == .medium)
        #expect(code == (try QRCode(encoding: "crew", correction: .medium)))
        #expect(code != (try QRCode(encoding: "crew", correction: .high)))
    }

    @Test("Subscript outside the matrix reads light")
    func subscriptOutside() throws {
        let code = try QRCode(encoding: "crew")
        #expect(code[0, 0])  // finder corner
        #expect(!code[-1, 0])
        #expect(!code[0, code.size])
        #expect(!code[Int.min, Int.max])
    }
}
