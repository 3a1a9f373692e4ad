#include "engine/dummy_weight_source.h"

#include "engine/torch_status.h"

namespace mineru::engine {

Result<std::unique_ptr<DummyWeightSource>> DummyWeightSource::Create(const ModelConfig& config,
                                                                     at::ScalarType dtype, bool tied,
                                                                     uint64_t seed) {
  std::unique_ptr<DummyWeightSource> s(new DummyWeightSource());
  s->dtype_ = dtype;
  s->tied_ = tied;
  s->units_ = UnitsFromConfig(config, dtype == at::kFloat ? StorageDtype::kF32 : StorageDtype::kBF16, tied);
  MINERU_RETURN_IF_ERROR(CatchTorch("generating dummy weights", [&]() -> Status {
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    {
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_current_seed(seed);
    }
    for (const UnitInfo& u : s->units_) {
      auto t = std::make_shared<UnitTensors>();
      for (const UnitTensor& ut : u.tensors) {
        const bool is_norm = ut.name.find("norm") != std::string::npos;
        at::Tensor w =
            is_norm && ut.name.find("weight") != std::string::npos
                ? at::ones(ut.shape, at::TensorOptions().dtype(dtype))
                : at::empty(ut.shape, at::TensorOptions().dtype(at::kFloat)).normal_(0.0, 0.02).to(dtype);
        (*t)[ut.name] = std::move(w);
      }
      s->tensors_[u.name] = std::move(t);
    }
    return Status::Ok();
  }));
  return s;
}

Result<WeightLease> DummyWeightSource::Acquire(const std::string& unit_name) {
  auto it = tensors_.find(unit_name);
  if (it == tensors_.end()) return NotFound("no weight unit \"" + unit_name + "\"");
  return WeightLease(it->second, nullptr);
}

}  // namespace mineru::engine
