import Foundation
import GangwaySystem

/// Reads the text of a QR code from a PNG through `zbarimg` (Debian package zbar-tools),
/// when it is installed.
public struct QRCodeDecoder: Sendable {
    /// Where to look for `zbarimg`.
    public var searchPath: [String]

    public init(searchPath: [String] = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg", "/opt/homebrew/bin/zbarimg"]) {
        self.searchPath = searchPath
    }

    /// The `zbarimg` found, if any.
    public var executable: String? { ExternalTool("zbarimg", searchPath: searchPath).executable }

    /// Whether `data` starts like a PNG.
    public static func isPNG(_ data: Data) -> Bool {
        data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// The text of the one QR code in the image at `file`.
    /// - Throws: ``ConfigurationError/qrDecoderUnavailable`` without `zbarimg`,
    ///   ``ConfigurationError/unreadableQRCode`` when the image holds no QR code.
    public func text(ofImageAt file: URL) async throws(ConfigurationError) -> String {
        let zbarimg = ExternalTool("zbarimg", searchPath: searchPath)
        let output: ExternalTool.Output?
        do {
            output = try await zbarimg.run(["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", "--", file.path])
        } catch {
            throw .unreadableQRCode("zbarimg could not be run")
        }
        guard let result = output else { throw .qrDecoderUnavailable }
        // zbarimg exits 4 when it found no code.
        guard result.status == 0 else { throw .unreadableQRCode("no QR code in the image") }
        let lines = result.text
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard lines.count == 1 else {
            throw .unreadableQRCode(lines.isEmpty ? "no QR code in the image" : "more than one QR code in the image")
        }
        return lines[0]
    }
}
