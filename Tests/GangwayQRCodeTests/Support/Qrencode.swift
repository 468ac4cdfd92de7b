import Foundation
import GangwaySystem

@testable import GangwayQRCode

/// Runs the reference encoder `qrencode` and reads its output.
enum Qrencode {
    /// A symbol as qrencode drew it: rows of modules, `true` for dark.
    struct Symbol {
        let rows: [[Bool]]
        var size: Int { rows.count }
        var version: Int { (size - 17) / 4 }

        /// The data mask, read from the format information around the top-left finder.
        var mask: Int {
            var bits = 0
            for index in 0..<15 {
                let (x, y): (Int, Int)
                switch index {
                case 0..<6: (x, y) = (8, index)
                case 6..<8: (x, y) = (8, index + 1)
                case 8: (x, y) = (7, 8)
                default: (x, y) = (14 - index, 8)
                }
                if rows[y][x] {
                    bits |= 1 << index
                }
            }
            return ((bits ^ 0x5412) >> 10) & 0b111
        }
    }

    /// qrencode's symbol of `bytes` at error correction M, and ours with its version and
    /// mask, to compare module for module; `nil` without qrencode.
    static func paired(_ bytes: [UInt8]) async throws -> (reference: Symbol, ours: QRCode)? {
        guard let reference = try await symbol(bytes: bytes, correction: .medium) else { return nil }
        let ours = try QRCode(
            bytes: bytes,
            correction: .medium,
            minimumVersion: reference.version,
            forcedMask: reference.mask
        )
        return (reference, ours)
    }

    /// The symbol `qrencode -8 -t ASCII -m 0` makes of `bytes`, optionally with a minimum version.
    static func symbol(
        bytes: [UInt8],
        correction: QRCode.Correction,
        minimumVersion: Int? = nil
    ) async throws -> Symbol? {
        var arguments = ["-8", "-l", Fixtures.qrencodeLevel(correction), "-t", "ASCII", "-m", "0"]
        if let minimumVersion {
            arguments += ["-v", String(minimumVersion)]
        }
        arguments += ["-o", "-"]
        guard let output = try await Tools.run(Tools.qrencode, arguments, input: Data(bytes)), output.status == 0 else {
            return nil
        }
        let rows = output.text.split(separator: "\n").map { line in
            // Two characters per module: "##" dark, "  " light.
            let characters = Array(line)
            return stride(from: 0, to: characters.count, by: 2).map { characters[$0] == "#" }
        }
        return Symbol(rows: rows)
    }

    /// The lines `qrencode -8 -t UTF8 -m margin` prints for `bytes` at a minimum version.
    static func utf8Lines(
        bytes: [UInt8],
        correction: QRCode.Correction,
        minimumVersion: Int,
        margin: Int
    ) async throws -> [String]? {
        let arguments = [
            "-8", "-l", Fixtures.qrencodeLevel(correction), "-v", String(minimumVersion),
            "-t", "UTF8", "-m", String(margin), "-o", "-",
        ]
        guard let output = try await Tools.run(Tools.qrencode, arguments, input: Data(bytes)), output.status == 0 else {
            return nil
        }
        return output.text.split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
            .filter { !$0.isEmpty }
    }
}
