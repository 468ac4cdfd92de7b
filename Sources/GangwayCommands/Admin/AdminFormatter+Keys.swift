import Foundation
import GangwayAdmin
import GangwayProtocol

extension AdminFormatter {
    static func signingKeys(_ keys: [ManagedSigningKey]) -> String {
        table(
            ["PURPOSE", "KID", "STATE", "SIGNS FROM", "PUBLISHED UNTIL"],
            keys.map {
                [
                    $0.purpose.rawValue, $0.kid, $0.state.rawValue,
                    $0.signsFrom.timeIntervalSince1970 <= 0 ? "first key" : date($0.signsFrom),
                    $0.publishedUntil.map(date) ?? "",
                ]
            }
        )
    }

    static func rotated(_ key: ManagedSigningKey) -> String {
        guard key.purpose != .activation else {
            return "The activation key \(key.kid) signs links from now on, endorsed by the one before: a device that "
                + "pinned any earlier key verifies them, and links made before still work."
        }
        let when =
            key.state == .signing ? "signs from now on" : "is published now and signs from \(date(key.signsFrom))"
        return "The \(key.purpose.rawValue) key \(key.kid) \(when); the one before stays published until the tokens "
            + "it signed have expired."
    }
}
