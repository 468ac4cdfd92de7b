/// How the codewords of one version and correction level split into error correction blocks.
struct BlockLayout {
    /// Total codewords in the symbol, data and error correction.
    let totalCodewords: Int
    /// Error correction codewords in every block.
    let correctionCodewordsPerBlock: Int
    /// Number of blocks.
    let blockCount: Int

    init(version: Int, correction: QRCode.Correction) {
        totalCodewords = ErrorCorrectionTable.totalCodewords[version - 1]
        correctionCodewordsPerBlock =
            ErrorCorrectionTable.codewordsPerBlock[correction.tableIndex][version - 1]
        blockCount = ErrorCorrectionTable.blockCounts[correction.tableIndex][version - 1]
    }

    /// Data codewords in the whole symbol.
    var dataCodewords: Int { totalCodewords - correctionCodewordsPerBlock * blockCount }

    /// Blocks of the first group, which hold one data codeword fewer than the second group's.
    var shortBlockCount: Int { blockCount - totalCodewords % blockCount }

    /// Data codewords in a block of the first group.
    var shortBlockDataCodewords: Int { totalCodewords / blockCount - correctionCodewordsPerBlock }

    /// Splits `data` into blocks, appends each block's Reed–Solomon codewords and interleaves
    /// them as ISO/IEC 18004:2015 7.6 describes: data codewords column by column across blocks,
    /// then error correction codewords the same way.
    func interleavedCodewords(data: [UInt8]) -> [UInt8] {
        precondition(data.count == dataCodewords, "data must fill the symbol's data codewords")
        let encoder = ReedSolomonEncoder(degree: correctionCodewordsPerBlock)
        var dataBlocks: [ArraySlice<UInt8>] = []
        var correctionBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortBlockDataCodewords + (index < shortBlockCount ? 0 : 1)
            let block = data[start..<(start + length)]
            dataBlocks.append(block)
            correctionBlocks.append(encoder.remainder(of: block))
            start += length
        }

        var result: [UInt8] = []
        result.reserveCapacity(totalCodewords)
        for column in 0...shortBlockDataCodewords {
            for block in dataBlocks where column < block.count {
                result.append(block[block.startIndex + column])
            }
        }
        for column in 0..<correctionCodewordsPerBlock {
            for block in correctionBlocks {
                result.append(block[column])
            }
        }
        return result
    }
}
