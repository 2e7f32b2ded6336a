import Foundation
import Hummingbird
import Metrics
import Prometheus

/// The service's metrics through swift-metrics (the executable bootstraps swift-prometheus under them; `/metrics`
/// emits its registry). Names, with their labels:
/// - `vision_tasks_requests_total{route,status}`: every answered request; `vision_tasks_request_seconds{route,status}`
///   its time from routing to the answer's head (histogram: tools/load-test reads accepted requests' p50/p99 from it);
/// - `vision_tasks_rejected_total{reason}`: requests refused (unauthorized, too_large, unsupported_media_type,
///   overloaded, deadline, client_closed);
/// - `vision_tasks_stage_seconds{task,stage}`: decode and inference time per image or frame (histogram);
/// - `vision_tasks_queue_wait_seconds`: time waited for a slot (histogram); `vision_tasks_queue_depth`,
///   `vision_tasks_slots_busy` (gauges, from ``InferencePool``);
/// - `vision_tasks_frames_total{task}`: video frames answered;
/// - `vision_tasks_model_load_seconds{model}`: each model's load at start (histogram).
struct ServiceMetrics: Sendable {
    /// Routes counted under their own path; anything else (404s, probes of random paths) is `other`, so that
    /// clients cannot grow the label set.
    private static let routes: Set<String> = Set(
        ["/healthz", "/readyz", "/metrics", "/v1/models"]
            + TaskKind.allCases.flatMap { ["/v1/\($0.rawValue)", "/v1/\($0.rawValue)/video"] })

    func request(path: String, status: Int, seconds duration: Duration) {
        let route = Self.routes.contains(path) ? path : "other"
        Counter(label: "vision_tasks_requests_total", dimensions: [("route", route), ("status", "\(status)")]).increment()
        Timer(label: "vision_tasks_request_seconds", dimensions: [("route", route), ("status", "\(status)")]).record(duration: duration)
        let reason: String? = switch status {
        case 401: "unauthorized"
        case 413: "too_large"
        case 415: "unsupported_media_type"
        case 503: "overloaded"
        case 504: "deadline"
        case 499: "client_closed"
        default: nil
        }
        if let reason { Counter(label: "vision_tasks_rejected_total", dimensions: [("reason", reason)]).increment() }
    }

    func stage(_ task: TaskKind, _ stage: String, seconds duration: Duration) {
        Timer(label: "vision_tasks_stage_seconds", dimensions: [("task", task.rawValue), ("stage", stage)]).record(duration: duration)
    }

    func queueWait(seconds duration: Duration) {
        Timer(label: "vision_tasks_queue_wait_seconds").record(duration: duration)
    }

    func frame(_ task: TaskKind) {
        Counter(label: "vision_tasks_frames_total", dimensions: [("task", task.rawValue)]).increment()
    }

    func modelLoad(_ model: String, seconds duration: Duration) {
        Timer(label: "vision_tasks_model_load_seconds", dimensions: [("model", model)]).record(duration: duration)
    }
}

/// Counts every request by route and status, errors included (the router turns them into responses after the
/// middleware has seen them).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.request(path: request.uri.path, status: response.status.code, seconds: start.duration(to: .now))
            return response
        } catch {
            metrics.request(path: request.uri.path, status: (error as? any HTTPResponseError)?.status.code ?? 500,
                            seconds: start.duration(to: .now))
            throw error
        }
    }
}

extension VisionTasksService {
    /// swift-prometheus under swift-metrics with the service's histogram buckets: 1 ms to 60 s in steps of about
    /// 1.5×, fine enough for p50/p99 of requests that take tens to hundreds of milliseconds.
    public static func metricsFactory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        var buckets: [Duration] = []
        var microseconds = 1000.0
        while microseconds <= 60_000_000 {
            buckets.append(.microseconds(Int64(microseconds.rounded())))
            microseconds *= 1.5
        }
        factory.defaultDurationHistogramBuckets = buckets
        return factory
    }
}

extension Timer {
    func record(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
