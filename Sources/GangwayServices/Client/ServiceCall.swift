import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime

/// How every client call turns transport failures and undecodable bodies into a
/// ``ServiceError``; error answers become one in ``ServiceCallMiddleware``.
enum ServiceCall {
    static func run<Output>(_ body: () async throws -> Output) async throws(ServiceError) -> Output {
        do {
            return try await body()
        } catch let error as ClientError {
            if let answer = error.underlyingError as? ServiceError { throw answer }
            if error.response == nil { throw .unreachable }
            throw .invalidResponse(status: error.response?.status.code)
        } catch {
            throw .unreachable
        }
    }

    static func decode<Value>(_ body: () throws -> Value) throws(ServiceError) -> Value {
        do {
            return try body()
        } catch {
            throw .invalidResponse(status: nil)
        }
    }

    /// An answer the generated client read but the call does not expect: an error
    /// status never gets here (``ServiceCallMiddleware`` turned it into a
    /// ``ServiceError``), so this is a status the document does not allow.
    static func unexpected(_ output: Any) -> ServiceError {
        // `.undocumented(statusCode:_:)` carries the status as its first value.
        let status = Mirror(reflecting: output).children.first.flatMap { child in
            Mirror(reflecting: child.value).children.first?.value as? Int
        }
        return .invalidResponse(status: status)
    }
}
