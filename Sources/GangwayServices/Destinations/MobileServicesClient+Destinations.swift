import Foundation
import GangwayProtocol
import HTTPTypes
import OpenAPIRuntime

extension MobileServicesClient {
    /// The header the server puts on a destination's own answer, naming the destination:
    /// an answer without it is the server's, such as a refusal of the session.
    public static let destinationHeader = "X-Gangway-Destination"

    /// Sends `request` to the app's destination with the session's `token`.
    ///
    /// - Parameters:
    ///   - limit: The most bytes of the answer's body kept.
    ///   - observer: Told how far a body at least its threshold in size has travelled, as
    ///     it goes: the request's as the transport takes it, the answer's as it arrives.
    /// - Throws: ``ServiceError``: ``ServiceError/sessionExpired`` when the server no
    ///   longer takes the token, ``ServiceError/registrationLocked`` and
    ///   ``ServiceError/registrationWiped``, ``ServiceError/notFound`` for a destination
    ///   the app does not have, ``ServiceError/serverFailure`` when the backend could not
    ///   be reached, ``ServiceError/unreachable(_:)`` offline.
    public func send(
        _ request: DestinationRequest,
        appID: String,
        token: SessionToken,
        limit: Int,
        observer: TransferObserver? = nil
    ) async throws(ServiceError) -> DestinationResponse {
        guard let method = HTTPRequest.Method(request.method) else { throw .invalidResponse(status: nil) }
        var fields = HTTPFields()
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            guard let field = HTTPField.Name(name), field != .authorization, field != .cookie else { continue }
            fields.append(HTTPField(name: field, value: value))
        }
        fields[.authorization] = "Bearer \(token.value)"
        let segment = request.destination.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
        let path =
            "/apps/\(appID)/destinations/\(segment)\(request.path)" + (request.query.map { "?" + $0 } ?? "")
        let head = HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: fields)
        let (response, body): (HTTPResponse, Data)
        do {
            let (answer, stream) = try await transport.send(
                head,
                body: request.body.map { Self.body($0, observer: observer) },
                baseURL: serverURL,
                operationID: "forwardToDestination"
            )
            response = answer
            body = try await Self.collect(
                stream,
                upTo: limit,
                status: answer.status.code,
                total: answer.headerFields[.contentLength].flatMap { Int($0) },
                observer: observer
            )
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .unreachable(serverURL)
        }
        guard response.headerFields[HTTPField.Name(Self.destinationHeader)!] == nil else {
            var headers: [String: String] = [:]
            for field in response.headerFields { headers[field.name.canonicalName] = field.value }
            return DestinationResponse(status: response.status.code, headers: headers, body: body)
        }
        // The server's own answer: a refusal, as its error document says.
        let document = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        throw ServiceError.answer(
            status: response.status.code,
            code: document?["code"] as? String,
            message: document?["message"] as? String
        )
    }

    /// An answer's body, up to `limit` bytes: a larger one, or one cut short, is not an
    /// answer this call takes.
    private static func collect(
        _ body: HTTPBody?,
        upTo limit: Int,
        status: Int,
        total: Int?,
        observer: TransferObserver?
    ) async throws -> Data {
        guard let body else { return Data() }
        var data = Data()
        do {
            for try await chunk in body {
                data.append(contentsOf: chunk)
                guard data.count <= limit else { throw ServiceError.invalidResponse(status: status) }
                // Reported once the answer is known to be large, or has become so.
                if let observer, max(total ?? 0, data.count) >= observer.threshold {
                    observer.report(TransferProgress(.download, bytes: data.count, total: total))
                }
            }
        } catch {
            throw ServiceError.invalidResponse(status: status)
        }
        return data
    }

    /// The request's body: with an observer and at least its threshold in size, in chunks
    /// that report as the transport takes them.
    private static func body(_ data: Data, observer: TransferObserver?) -> HTTPBody {
        guard let observer, data.count >= observer.threshold else { return HTTPBody(data) }
        return HTTPBody(
            ReportedChunks(data: data, observer: observer),
            length: .known(Int64(data.count)),
            iterationBehavior: .multiple
        )
    }
}

/// A body's bytes in chunks, each reported as it is taken.
private struct ReportedChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    static let chunkSize = 64 << 10

    let data: Data
    let observer: TransferObserver

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let observer: TransferObserver
        var offset = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard offset < data.count else { return nil }
            let end = Swift.min(offset + ReportedChunks.chunkSize, data.count)
            let chunk = ArraySlice(data[data.startIndex + offset..<data.startIndex + end])
            offset = end
            observer.report(TransferProgress(.upload, bytes: offset, total: data.count))
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data, observer: observer) }
}
