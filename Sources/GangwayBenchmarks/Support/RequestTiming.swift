import ArgumentParser
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests timed one after another over a URL session, for the benchmarks that compare
/// two routes in turns.
enum RequestTiming {
    /// The milliseconds of `count` samples, each the requests of its index made one after
    /// another.
    static func time(_ session: URLSession, _ count: Int, _ requests: (Int) -> [URLRequest]) async throws -> [Double] {
        var times: [Double] = []
        for index in 0..<count {
            let started = ContinuousClock.now
            for request in requests(index) { _ = try await fetch(session, request) }
            times.append(Measure.milliseconds(ContinuousClock.now - started))
        }
        return times
    }

    static func fetch(_ session: URLSession, _ request: URLRequest) async throws -> Data {
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw ValidationError(
                "\(request.url?.path ?? "") answered \((response as? HTTPURLResponse)?.statusCode ?? 0)"
            )
        }
        return data
    }
}
