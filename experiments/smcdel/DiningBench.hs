-- | Dining cryptographers with SMCDEL 1.3.0 (one measurement per process run), the
-- counterpart of the "dining" case of experiments/bench_smcdel.py.
--
-- Usage: DiningBench N
--
-- The structure is SMCDEL's own (SMCDEL.Examples.DiningCrypto.genDcKnsInit N: the NSA
-- or one of the N cryptographers paid, one shared coin per pair, each cryptographer
-- observes whether they paid and their N-1 coins) and so is the formula, that of
-- SMCDEL's bench/diningcrypto.hs: after the public announcement whether the XOR of
-- everybody's announced bit is true, if cryptographer 1 did not pay then 1 knows that
-- nobody paid, or knows that another one paid without knowing who.  It is checked
-- valid with validViaBdd (CacBDD backend).  Prints one line:
--   dining n=N result=True seconds=T
-- T is wall-clock time (GHC.Clock.getMonotonicTime) around building the structure and
-- the check, after a warm-up that initialises the BDD manager.  Exits non-zero when
-- the formula is not valid.
module Main (main) where

import Control.Exception (evaluate)
import GHC.Clock (getMonotonicTime)
import System.Environment (getArgs)
import System.Exit (exitFailure)
import Text.Printf (printf)

import SMCDEL.Language
import SMCDEL.Symbolic.S5
import SMCDEL.Examples.DiningCrypto (genDcKnsInit, genDcReveal)

checkForm :: Int -> Form
checkForm n =
  PubAnnounceW (Xor [ genDcReveal n i | i <- [1..n] ]) $
    Impl (Neg (PrpF (P 1))) $
      Disj [ K "1" (Conj [ Neg (PrpF (P k)) | k <- [1..n] ])
           , Conj [ K "1" (Disj [ PrpF (P k) | k <- [2..n] ])
                  , Conj [ Neg (K "1" (PrpF (P k))) | k <- [2..n] ] ] ]

main :: IO ()
main = do
  args <- getArgs
  case args of
    [nStr] -> do
      let n = read nStr :: Int
      _ <- evaluate (boolBddOf (PrpF (P 0)) == boolBddOf Top)
      t0 <- getMonotonicTime
      ok <- evaluate (validViaBdd (genDcKnsInit n) (checkForm n))
      t1 <- getMonotonicTime
      printf "dining n=%d result=%s seconds=%.4f\n" n (show ok) (t1 - t0)
      if ok then return () else exitFailure
    _ -> putStrLn "usage: DiningBench N" >> exitFailure
