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

    static func rotated(_ key: ManagedSigningKey, droppedOldest: Bool = false) -> String {
        guard key.purpose != .activation else {
            guard droppedOldest else {
                return "The activation key \(key.kid) signs links from now on, endorsed by the one before: a device "
                    + "that pinned any earlier key verifies them, and links made before still work."
            }
            return "The activation key \(key.kid) signs links from now on, endorsed by the one before; the oldest key "
                + "is dropped: a device that pinned only it refuses the new links until it pins a newer one."
        }
        let when =
            key.state == .signing ? "signs from now on" : "is published now and signs from \(date(key.signsFrom))"
        return "The \(key.purpose.rawValue) key \(key.kid) \(when); the one before stays published until the tokens "
            + "it signed have expired."
    }
}
