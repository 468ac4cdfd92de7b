import Foundation
import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime

/// How every client call turns transport failures and undecodable bodies into a
/// ``ServiceError``; error answers become one in ``ServiceCallMiddleware``.
package enum ServiceCall {
    /// - Parameter serverURL: The server called, which an unreachable one is named by.
    package static func run<Output>(
        at serverURL: URL,
        _ body: () async throws -> Output
    ) async throws(ServiceError) -> Output {
        do {
            return try await body()
        } catch let error as ClientError {
            if let answer = error.underlyingError as? ServiceError { throw answer }
            if error.response == nil { throw .unreachable(serverURL) }
            throw .invalidResponse(status: error.response?.status.code)
        } catch {
            throw .unreachable(serverURL)
        }
    }

    package static func decode<Value>(_ body: () throws -> Value) throws(ServiceError) -> Value {
        do {
            return try body()
        } catch {
            throw .invalidResponse(status: nil)
        }
    }

    /// An error answer that reached a call: ``ServiceCallMiddleware`` turns every status
    /// of 400 or more into a ``ServiceError`` first, so this does not happen; the cases
    /// stay in the generated enums, and `default:` takes them.
    package static let errorAnswerNotMapped = ServiceError.invalidResponse(status: nil)
}
