/// Computes Reed–Solomon error correction codewords (ISO/IEC 18004:2015 7.5.2).
///
/// The generator polynomial of degree n is (x - alpha^0)(x - alpha^1)...(x - alpha^(n-1)),
/// and the error correction codewords are the remainder of data(x) * x^n divided by it.
struct ReedSolomonEncoder {
    /// Generator coefficients from the highest degree down, without the leading 1.
    let generator: [UInt8]

    /// Creates an encoder producing `degree` error correction codewords per block.
    init(degree: Int) {
        precondition(degree >= 1, "degree must be positive")
        var polynomial: [UInt8] = [1]
        for power in 0..<degree {
            // Multiply by (x + alpha^power); subtraction is addition in GF(2^8).
            let root = GaloisField.alpha(power)
            var product = polynomial + [0]
            for index in 1..<product.count {
                product[index] ^= GaloisField.multiply(polynomial[index - 1], root)
            }
            polynomial = product
        }
        generator = Array(polynomial.dropFirst())
    }

    /// The error correction codewords for one block of data codewords.
    func remainder(of data: some Sequence<UInt8>) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for codeword in data {
            let factor = codeword ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in generator.indices {
                remainder[index] ^= GaloisField.multiply(generator[index], factor)
            }
        }
        return remainder
    }
}
