package import Foundation
internal import GangwayProtocol
import HTTPTypes
internal import OpenAPIRuntime

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

    /// What a call makes of an answer it does not take, the `default:` of its switch over
    /// the generated output: a status the API document does not list for the operation
    /// (the generator's `undocumented` case) is an invalid response with that status.
    /// ``ServiceCallMiddleware`` turns every status of 400 or more into a ``ServiceError``
    /// before it reaches a call, so any other answer here is one the middleware missed:
    /// an invalid response too.
    package static func unexpected<Output>(_ output: Output) -> ServiceError {
        // Every generated output enum has the case `undocumented(statusCode: Int, _)`.
        guard let answer = Mirror(reflecting: output).children.first, answer.label == "undocumented",
            let status = Mirror(reflecting: answer.value).children.first?.value as? Int
        else { return .invalidResponse(status: nil) }
        return .invalidResponse(status: status)
    }
}
