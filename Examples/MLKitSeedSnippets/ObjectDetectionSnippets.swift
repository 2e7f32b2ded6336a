// ML Kit's guide "Detect, track and classify objects with a custom classification model on iOS"
// (../shared/seeds/002_5bda7afb240c6767.txt): its Swift snippets, in order, with only the import changed and UIImage
// replaced by MPImage. Where the guide's code is a fragment (`// Show results.`), the results are collected.
import VisionTasksMLKit
import Synchronization

// Sendable, as the guide's UIKit view controller (main-actor isolated) is: its notification blocks capture `[weak self]`.
final class ObjectDetectionSnippets: Sendable {
    let localModelFilePath: String
    let downloads = Mutex<[String]>([])

    init(localModelFilePath: String) {
        self.localModelFilePath = localModelFilePath
    }

    /// 1. Load the model: a local model, a remote one (no Firebase here: the name is looked up among registered
    /// sources, so the download fails and the guide's fall-back to the local model is what runs), 2. configure.
    func options() -> CustomObjectDetectorOptions {
        let localModel = LocalModel(path: localModelFilePath)

        let firebaseModelSource = FirebaseModelSource(
            name: "your_remote_model") // The name you assigned in
                                       // the Firebase console.
        let remoteModel = CustomRemoteModel(remoteModelSource: firebaseModelSource)

        let downloadConditions = ModelDownloadConditions(
          allowsCellularAccess: true,
          allowsBackgroundDownloading: true
        )
        let downloadProgress = ModelManager.modelManager().download(
          remoteModel,
          conditions: downloadConditions
        )
        _ = downloadProgress

        NotificationCenter.default.addObserver(
            forName: .mlkitModelDownloadDidSucceed,
            object: nil,
            queue: nil
        ) { [weak self] notification in
            guard let strongSelf = self,
                let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue]
                    as? RemoteModel,
                model.name == "your_remote_model"
                else { return }
            // The model was downloaded and is available on the device
            strongSelf.downloads.withLock { $0.append("succeeded") }
        }

        NotificationCenter.default.addObserver(
            forName: .mlkitModelDownloadDidFail,
            object: nil,
            queue: nil
        ) { [weak self] notification in
            guard let strongSelf = self,
                let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue]
                    as? RemoteModel
                else { return }
            let error = userInfo[ModelDownloadUserInfoKey.error.rawValue]
            // ...
            strongSelf.downloads.withLock { $0.append("failed \(model.name): \(error.map { "\($0)" } ?? "")") }
        }

        var options: CustomObjectDetectorOptions!
        if (ModelManager.modelManager().isModelDownloaded(remoteModel)) {
          options = CustomObjectDetectorOptions(remoteModel: remoteModel)
        } else {
          options = CustomObjectDetectorOptions(localModel: localModel)
        }
        options.detectorMode = .singleImage
        options.shouldEnableClassification = true
        options.shouldEnableMultipleObjects = true
        options.classificationConfidenceThreshold = NSNumber(value: 0.5)
        options.maxPerObjectLabelCount = 3
        return options
    }

    /// The guide's two configurations: live detection and tracking, and multiple objects in static images.
    func liveOptions() -> CustomObjectDetectorOptions {
        let localModel = LocalModel(path: localModelFilePath)
        // Live detection and tracking
        let options = CustomObjectDetectorOptions(localModel: localModel)
        options.shouldEnableClassification = true
        options.maxPerObjectLabelCount = 3
        return options
    }

    func staticOptions() -> CustomObjectDetectorOptions {
        let localModel = LocalModel(path: localModelFilePath)
        // Multiple object detection in static images
        let options = CustomObjectDetectorOptions(localModel: localModel)
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        options.shouldEnableClassification = true
        options.maxPerObjectLabelCount = 3
        return options
    }

    /// 3. Prepare the input image, 4. create and run the detector (synchronously), 5. read the labelled objects.
    func synchronous(_ image: MPImage, options: CustomObjectDetectorOptions) -> [String] {
        let visionImage = VisionImage(image: image)
        visionImage.orientation = image.orientation

        let objectDetector = ObjectDetector.objectDetector(options: options)

        var objects: [Object]
        do {
          objects = try objectDetector.results(in: visionImage)
        } catch let error {
          // Handle the error.
          return ["error: \(error)"]
        }
        // Show results.
        var lines: [String] = []
        // objects contains one item if multiple object detection wasn't enabled.
        for object in objects {
          let frame = object.frame
          let trackingID = object.trackingID
          let description = object.labels.enumerated().map { (index, label) in
            "Label \(index): \(label.text), \(label.confidence), \(label.index)"
          }.joined(separator: "\n")
          lines.append("\(Int(frame.width))x\(Int(frame.height)) id \(trackingID.map { "\($0)" } ?? "nil") \(description.split(separator: "\n").first ?? "")")
        }
        return lines
    }

    /// The asynchronous call, completion in order.
    func asynchronous(_ image: MPImage, options: CustomObjectDetectorOptions) -> [String] {
        let visionImage = VisionImage(image: image)
        visionImage.orientation = image.orientation
        let objectDetector = ObjectDetector.objectDetector(options: options)
        let done = DispatchSemaphore(value: 0)
        let lines = Mutex<[String]>([])
        objectDetector.process(visionImage) { objects, error in
          defer { done.signal() }
          guard error == nil, let objects = objects, !objects.isEmpty else {
            // Handle the error.
            lines.withLock { $0.append("error: \(error.map { "\($0)" } ?? "no objects")") }
            return
          }
          // Show results.
          lines.withLock { $0.append("\(objects.count) object(s), first labelled \(objects[0].labels.first?.text ?? "-")") }
        }
        done.wait()
        return lines.withLock { $0 }
    }
}
