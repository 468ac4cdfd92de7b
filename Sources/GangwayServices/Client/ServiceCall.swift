import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime

/// How every client call turns transport failures, undecodable bodies and error
/// answers into a ``ServiceError``.
enum ServiceCall {
    static func run<Output>(_ body: () async throws -> Output) async throws(ServiceError) -> Output {
        do {
            return try await body()
        } catch let error as ClientError {
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

    static func failure(
        _ status: Int,
        _ reply: some ErrorReply,
        messageCode: String? = nil,
        retryAfter: Duration? = nil
    ) -> ServiceError {
        let body = reply.errorBody
        return .answer(
            status: status,
            code: body?.code,
            message: body?.message,
            messageCode: messageCode,
            retryAfter: retryAfter ?? body?.retryAfterSeconds.map { .seconds($0) }
        )
    }
}
