import Foundation

/// The OpenAPI 3.1 document of the mobile-services API, the source both the server's
/// routes and the client are generated from.
public enum APIDocument {
    /// The document's bytes, as kept in the repository (`openapi.json`), built into the
    /// module (no bundle beside the binary).
    public static func json() throws -> Data {
        guard let text = EmbeddedResources.files["openapi.json"] else { throw CocoaError(.fileNoSuchFile) }
        return Data(text.utf8)
    }
}
