# variant: cands=2k
# fairseq's BeamSearch.step: 2 * beam_size candidates, step 0 on lprobs[:, ::beam_size].
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    bsz = BK // K
    lprobs = (logprobs + beam_scores.unsqueeze(-1)).view(bsz, K, V)
    if first:
        lprobs = lprobs[:, ::K, :].contiguous()
    scores_buf, indices_buf = torch.topk(lprobs.view(bsz, -1), k=2 * K)
    beams_buf = torch.div(indices_buf, V, rounding_mode="trunc")
    indices_buf = indices_buf.fmod(V)
    return indices_buf, beams_buf, scores_buf
