import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) as authenticator apps make them: HMAC-SHA1
/// over 30-second steps (RFC 4226's truncation), six digits.
///
/// A code is taken within one step either side of the server's time, so a phone whose
/// clock is a little off still signs in; ``matchingStep(of:at:)`` says which step matched,
/// for the caller to take each step once.
public struct TOTP: Sendable {
    /// The digits of a code.
    public static let digits = 6
    /// The length of a step, in seconds.
    public static let period: Int64 = 30
    /// The steps either side of now a code is taken in.
    public static let window: Int64 = 1
    /// The length of a new secret, in bytes (160 bits, as RFC 4226 recommends).
    public static let secretLength = 20

    public let secret: Data

    public init(secret: Data) {
        self.secret = secret
    }

    /// A new secret from the system's random source.
    public static func newSecret() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<secretLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The step `date` falls in.
    public static func step(at date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down)) / period
    }

    /// The code of `step`, `digits` long.
    public func code(atStep step: Int64, digits: Int = TOTP.digits) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(binary % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The step within ``window`` of `date` whose code `code` is (spaces ignored), or
    /// `nil`; each candidate is compared in constant time.
    public func matchingStep(of code: String, at date: Date) -> Int64? {
        let typed = Array(code.filter { $0 != " " }.utf8)
        guard typed.count == Self.digits, typed.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let now = Self.step(at: date)
        var found: Int64?
        for step in (now - Self.window)...(now + Self.window) {
            let expected = Array(self.code(atStep: step).utf8)
            if zip(expected, typed).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 { found = found ?? step }
        }
        return found
    }

    /// The `otpauth://` address an authenticator app takes from a QR code.
    public func provisioningURI(account: String, issuer: String) -> String {
        var components = URLComponents()
        components.scheme = "otpauth"
        components.host = "totp"
        components.path = "/\(issuer):\(account)"
        components.queryItems = [
            URLQueryItem(name: "secret", value: Base32.encode(secret)),
            URLQueryItem(name: "issuer", value: issuer),
            URLQueryItem(name: "algorithm", value: "SHA1"),
            URLQueryItem(name: "digits", value: String(Self.digits)),
            URLQueryItem(name: "period", value: String(Self.period)),
        ]
        return components.string ?? ""
    }
}
