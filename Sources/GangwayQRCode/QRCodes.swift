public import Foundation

/// The server's QR codes (an activation link, an operator's second-factor key) as the
/// server hands them out: a PNG for the API, an SVG image for the console's pages.
public enum QRCodes {
    /// Modules per side of the quiet zone around the code, as ISO/IEC 18004 asks.
    public static let quietZone = 4

    /// `text` as a QR code at error correction M, or `nil` when it is longer than a QR code
    /// holds (2,331 bytes at M).
    public static func code(_ text: String) -> QRCode? {
        try? QRCode(encoding: text, correction: .medium)
    }

    /// The PNG of `text`, six pixels a module.
    public static func png(_ text: String) -> Data? {
        code(text).map { Data($0.png(moduleSize: 6, quietZone: quietZone)) }
    }

    /// `text` as an SVG image for an `<img>` of a console page: a `data:` address, which the
    /// pages' content security policy admits as an image and never as a script.
    public static func svgImage(_ text: String, title: String) -> String? {
        code(text).map {
            "data:image/svg+xml;base64,"
                + Data($0.svg(moduleSize: 6, quietZone: quietZone, title: title).utf8).base64EncodedString()
        }
    }
}
