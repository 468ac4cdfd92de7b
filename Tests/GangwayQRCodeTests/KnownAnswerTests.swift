import Testing

@testable import GangwayQRCode

/// Fixed vectors from the standard and well-known worked examples.
@Suite("Known answers")
struct KnownAnswerTests {
    @Test("Reed–Solomon: ISO/IEC 18004 Annex I example, \"01234567\" in 1-M")
    func reedSolomonStandardExample() {
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11,
            0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        let expected: [UInt8] = [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55]
        #expect(ReedSolomonEncoder(degree: 10).remainder(of: data) == expected)
    }

    @Test("Reed–Solomon: the \"HELLO WORLD\" 1-M tutorial vector")
    func reedSolomonHelloWorld() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        let expected: [UInt8] = [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]
        #expect(ReedSolomonEncoder(degree: 10).remainder(of: data) == expected)
    }

    @Test("Generator polynomial of degree 7 (Annex A) in alpha exponents")
    func generatorPolynomialDegreeSeven() {
        let exponents = ReedSolomonEncoder(degree: 7).generator.map {
            GaloisField.logarithms[Int($0)]
        }
        #expect(exponents == [87, 229, 146, 149, 238, 102, 21])
    }

    @Test("Byte-mode data codewords of \"hello\" in 1-M")
    func byteModeDataCodewords() {
        // 0100 | 00000101 | 'h' 'e' 'l' 'l' 'o' | 0000, then pad codewords.
        let expected: [UInt8] = [
            0x40, 0x56, 0x86, 0x56, 0xC6, 0xC6, 0xF0, 0xEC,
            0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC,
        ]
        let actual = DataCodewords.make(bytes: Array("hello".utf8), version: 1, correction: .medium)
        #expect(actual == expected)
    }

    /// Annex C, Table C.1: the 15-bit format information after masking with 0x5412.
    static let formatInformation: [QRCode.Correction: [String]] = [
        .low: [
            "111011111000100", "111001011110011", "111110110101010", "111100010011101",
            "110011000101111", "110001100011000", "110110001000001", "110100101110110",
        ],
        .medium: [
            "101010000010010", "101000100100101", "101111001111100", "101101101001011",
            "100010111111001", "100000011001110", "100111110010111", "100101010100000",
        ],
        .quartile: [
            "011010101011111", "011000001101000", "011111100110001", "011101000000110",
            "010010010110100", "010000110000011", "010111011011010", "010101111101101",
        ],
        .high: [
            "001011010001001", "001001110111110", "001110011100111", "001100111010000",
            "000011101100010", "000001001010101", "000110100001100", "000100000111011",
        ],
    ]

    @Test(
        "Format information, BCH(15,5) masked with 0x5412",
        arguments: QRCode.Correction.allCases
    )
    func formatInformationBits(correction: QRCode.Correction) {
        let expected = (Self.formatInformation[correction] ?? []).map { Int($0, radix: 2) }
        let actual = (0...7).map { FormatInformation.formatBits(correction: correction, mask: $0) }
        #expect(actual == expected)
    }

    @Test("Version information, BCH(18,6) (Annex D)")
    func versionInformationBits() {
        let expected = [
            7: "000111110010010100",
            8: "001000010110111100",
            10: "001010010011010011",
            40: "101000110001101001",
        ]
        for (version, bits) in expected {
            #expect(FormatInformation.versionBits(version: version) == Int(bits, radix: 2))
        }
    }

    @Test("Codeword table agrees with the modules left free by the function patterns (Table 1)")
    func codewordCountsMatchMatrix() {
        // Table 1, "Remainder Bits".
        func remainderBits(_ version: Int) -> Int {
            switch version {
            case 2...6: 7
            case 14...20, 28...34: 3
            case 21...27: 4
            default: 0
            }
        }
        for version in 1...40 {
            let matrix = SymbolMatrix(version: version)
            let freeModules = matrix.isFunction.filter { !$0 }.count
            #expect(
                freeModules == ErrorCorrectionTable.totalCodewords[version - 1] * 8
                    + remainderBits(version),
                "version \(version)"
            )
        }
    }

    @Test("Blocks of every version and level split evenly, within one codeword")
    func blockStructure() {
        for version in 1...40 {
            for correction in QRCode.Correction.allCases {
                let layout = BlockLayout(version: version, correction: correction)
                let longBlocks = layout.blockCount - layout.shortBlockCount
                let dataTotal =
                    layout.shortBlockCount * layout.shortBlockDataCodewords
                    + longBlocks * (layout.shortBlockDataCodewords + 1)
                #expect(dataTotal == layout.dataCodewords, "\(version)-\(correction)")
                #expect(layout.shortBlockCount > 0, "\(version)-\(correction)")
            }
        }
    }

    @Test("CRC-32 and Adler-32 check values")
    func checksums() {
        var crc = CRC32()
        crc.update(Array("123456789".utf8))
        #expect(crc.value == 0xCBF4_3926)
        var adler = Adler32()
        adler.update(Array("Wikipedia".utf8))
        #expect(adler.value == 0x11E6_0398)
    }

    @Test("Mask penalty rules on hand-made lines")
    func penaltyRules() {
        #expect(MaskPenalty.runPenalty([true, true, true, true]) == 0)
        #expect(MaskPenalty.runPenalty([true, true, true, true, true]) == 3)
        #expect(MaskPenalty.runPenalty(Array(repeating: false, count: 7) + [true]) == 5)
        let finder: [Bool] = [true, false, true, true, true, false, true]
        // Beyond the edges counts as light; light on both sides still counts once.
        #expect(MaskPenalty.finderPenalty(finder) == 40)
        #expect(MaskPenalty.finderPenalty(finder + [false] + finder) == 80)
        // Dark neighbours on both sides: no light area, no penalty.
        #expect(MaskPenalty.finderPenalty([true] + finder + [true]) == 0)
        // Light area after only.
        #expect(
            MaskPenalty.finderPenalty([true, false] + finder + [false, false, false, false]) == 40
        )
    }
}
