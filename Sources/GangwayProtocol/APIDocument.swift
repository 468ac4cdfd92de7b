import Foundation

/// The OpenAPI 3.1 document of the mobile-services API, the source both the server's
/// routes and the client are generated from.
public enum APIDocument {
    /// The document's bytes, as kept in the repository (`openapi.json`).
    public static func json() throws -> Data {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }
}
