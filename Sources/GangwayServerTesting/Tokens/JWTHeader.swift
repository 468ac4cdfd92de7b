import Foundation
import GangwayProtocol

/// What a relying party reads of a JWT before it verifies it: the header's fields.
public enum JWTHeader {
    /// The `kid` in `jwt`'s header; `nil` when it has none or is not a JWT.
    public static func kid(of jwt: String) -> String? {
        guard let part = jwt.split(separator: ".", omittingEmptySubsequences: false).first,
            let data = Data(base64URLEncoded: String(part)),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }
}
